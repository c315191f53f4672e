/**
 * Comparison cost by process count (issue #39): two trace folders of N short processes each (a
 * test runner's or a build's children), compared and reported in a fresh child process that
 * reports its wall and CPU time and its peak memory. Printed as figures, and as ratios per 10x
 * more processes (linear scaling gives about 10x). Before the first block of a table started
 * small, 10^4 processes took 139 s and 3 GB.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTrace } from '../test/synthetic.js';
import { REPO, table } from './common.js';

interface Measured {
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakMiB: number;
  readonly verdict: string;
}

export function benchProcesses(counts: readonly number[]): void {
  const rows: string[][] = [];
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-processes-'));
  let previous: Measured | null = null;
  try {
    for (const count of counts) {
      const [a, b] = ['a', 'b'].map((side) => writeFolder(join(dir, `${side}-${count}`), count)) as [string, string];
      const child = spawnSync(process.execPath, [join(REPO, 'dist', 'bench', 'diff-child.js'), a, b], {
        encoding: 'utf8',
      });
      rmSync(a, { recursive: true });
      rmSync(b, { recursive: true });
      if (child.status !== 0) {
        rows.push([String(count), 'failed', child.stderr.split('\n').find((line) => line.includes('Error')) ?? '']);
        previous = null;
        continue;
      }
      const measured = JSON.parse(child.stdout) as Measured;
      const { seconds, cpuSeconds, peakMiB, verdict } = measured;
      rows.push([
        String(count),
        seconds.toFixed(2),
        cpuSeconds.toFixed(2),
        peakMiB.toFixed(0),
        ((seconds / count) * 1e3).toFixed(2),
        verdict,
        previous ? `${(seconds / previous.seconds).toFixed(1)}x` : '',
        previous ? `${(peakMiB / previous.peakMiB).toFixed(1)}x` : '',
      ]);
      previous = measured;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log(
    '\nComparison of two folders of N processes, three events each, and its report (fresh process per count)',
  );
  console.log(
    table(
      ['processes', 'seconds', 'cpu s', 'peak MiB', 'ms a process', 'verdict', 'time vs 10x fewer', 'memory'],
      rows,
    ),
  );
}

/** `count` processes, `0` and its children `0.1`, `0.2`...: a draw, a clock read and a line each. */
function writeFolder(dir: string, count: number): string {
  mkdirSync(dir);
  for (let i = 0; i < count; i++) {
    const lineage = i === 0 ? '0' : `0.${i}`;
    const events = [
      { api: 'mathRandom', at: 'child.js:3', value: 0.5 },
      { api: 'dateNow', at: 'child.js:4', value: 1e12 + i },
      { api: 'stdout', at: 'child.js:5', value: `child ${i}\n` },
    ] as const;
    writeTrace(dir, lineage, events, { header: { lineage } });
  }
  return dir;
}
