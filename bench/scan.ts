/**
 * Scanner throughput: megabytes of JavaScript per second over real package trees, this
 * repository's own node_modules (pino, the @babel packages, then all of it, with and without the
 * size limit and the tests). One scan each, in this process; the first row also warms the JIT.
 * CPU seconds are printed beside wall seconds: on a busy machine the two part.
 */
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { scanDirectory, type ScanOptions } from '../diffing/scan/index.js';
import { REPO, table } from './common.js';

const TREES: readonly { label: string; dir: string; options?: ScanOptions }[] = [
  { label: 'node_modules/pino', dir: 'node_modules/pino' },
  { label: 'node_modules/@babel', dir: 'node_modules/@babel' },
  { label: 'node_modules', dir: 'node_modules' },
  {
    label: 'node_modules, tests, no size limit',
    dir: 'node_modules',
    options: { includeDevelopment: true, maxBytes: Infinity },
  },
];

export function benchScan(): void {
  const rows = TREES.map(({ label, dir, options }) => {
    const start = performance.now();
    const cpu = process.cpuUsage();
    const result = scanDirectory(join(REPO, dir), options);
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    const cpuSeconds = (used.user + used.system) / 1e6;
    const megabytes = result.bytes / 1e6;
    return [
      label,
      megabytes.toFixed(1),
      String(result.files),
      String(result.sites.length),
      String(result.errors.length),
      String(result.skipped.length),
      seconds.toFixed(2),
      cpuSeconds.toFixed(2),
      (megabytes / seconds).toFixed(2),
      (megabytes / cpuSeconds).toFixed(2),
    ];
  });
  console.log('\nscan: clock and entropy call sites in real packages (one scan each)\n');
  console.log(
    table(['tree', 'MB', 'files', 'sites', 'errors', 'skipped', 'seconds', 'cpu s', 'MB/s', 'MB/cpu s'], rows),
  );
}
