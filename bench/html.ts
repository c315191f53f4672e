/**
 * The HTML report's cost against the comparison it draws: two traces of N events that part once
 * near the end, compared and built into a report, then rendered. The page draws a bounded window,
 * so its size and render time should stay flat while comparison grows with N.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare } from '../diffing/compare.js';
import { buildReport } from '../diffing/findings/build.js';
import { renderHtml } from '../report/html.js';
import { table } from './common.js';
import { writeSynthetic } from './diff.js';

export function benchHtml(sizes: readonly number[]): void {
  const rows: string[][] = [];
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-html-'));
  let first: { render: number; bytes: number } | null = null;
  try {
    for (const size of sizes) {
      const a = writeSynthetic(join(dir, `a-${size}.ddtrace`), size, 'once-near-end', 0);
      const b = writeSynthetic(join(dir, `b-${size}.ddtrace`), size, 'once-near-end', 1);
      const compared = seconds(() => buildReport(compare(a, b), { root: dir }));
      renderHtml(compared.value); // warm: the first render of a process also compiles the renderer
      const rendered = seconds(() => renderHtml(compared.value));
      const bytes = Buffer.byteLength(rendered.value);
      first ??= { render: rendered.seconds, bytes };
      rows.push([
        size.toExponential(0),
        compared.seconds.toFixed(2),
        (rendered.seconds * 1000).toFixed(1),
        (bytes / 1024).toFixed(0),
        `${((rendered.seconds / compared.seconds) * 100).toFixed(2)}%`,
        `${(bytes / first.bytes).toFixed(2)}x`,
      ]);
      rmSync(a);
      rmSync(b);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nHTML report of two traces that part once near the end (compare + build, then render)');
  console.log(
    table(['events', 'compare+build s', 'render ms', 'page KiB', 'render / compare', 'page vs smallest'], rows),
  );
}

function seconds<T>(work: () => T): { value: T; seconds: number } {
  const start = process.hrtime.bigint();
  const value = work();
  return { value, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
}
