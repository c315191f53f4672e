/**
 * Comparison cost: two traces of N events that differ once near the end, and at 1% of events
 * spread through the trace, each compared (and its report built) in a fresh child process that
 * reports its wall and CPU time and its peak memory. Printed as figures, and as ratios per 10x
 * more events (linear scaling gives about 10x). The target (issue #8): 10^7 events in under 10 s
 * and 512 MiB, whatever the shape.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { TraceWriter } from '../tracer/writer.js';
import { header } from '../test/synthetic.js';
import { REPO, table } from './common.js';

export type Shape = 'once-near-end' | 'one-percent';

interface Measured {
  readonly seconds: number;
  readonly cpuSeconds: number;
  readonly peakMiB: number;
  readonly verdict: string;
  readonly at: string | null;
}

export function benchDiff(sizes: readonly number[]): void {
  const rows: string[][] = [];
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-diff-'));
  try {
    for (const shape of ['once-near-end', 'one-percent'] as const) {
      let previous: number | null = null;
      for (const size of sizes) {
        const a = writeSynthetic(join(dir, `a-${size}.ddtrace`), size, shape, 0);
        const b = writeSynthetic(join(dir, `b-${size}.ddtrace`), size, shape, 1);
        const child = spawnSync(process.execPath, [join(REPO, 'dist', 'bench', 'diff-child.js'), a, b], {
          encoding: 'utf8',
        });
        rmSync(a);
        rmSync(b);
        if (child.status !== 0) {
          rows.push([
            shape,
            size.toExponential(0),
            'failed',
            child.stderr.split('\n').find((line) => line.includes('Error')) ?? `exit ${child.status}`,
            '',
            '',
            '',
            '',
          ]);
          previous = null;
          continue;
        }
        const { seconds, cpuSeconds, peakMiB, verdict, at } = JSON.parse(child.stdout) as Measured;
        const ratio = previous ? `${(seconds / previous).toFixed(1)}x` : '';
        rows.push([
          shape,
          size.toExponential(0),
          seconds.toFixed(2),
          cpuSeconds.toFixed(2),
          peakMiB.toFixed(0),
          verdict,
          at ?? '',
          ratio,
        ]);
        previous = seconds;
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  console.log('\nComparison of two traces and its report (fresh process per size; target at 1e7: < 10 s, < 512 MiB)');
  console.log(
    table(
      ['differences', 'events', 'seconds', 'cpu s', 'peak MiB', 'verdict', 'first divergence', 'vs 10x fewer'],
      rows,
    ),
  );
}

/**
 * A simulation-like trace: Math.random draws, clock reads and a few directory reads from a
 * handful of sites, an output every 1000 events. Run 1 differs from run 0 as `shape` says.
 */
export function writeSynthetic(file: string, size: number, shape: Shape, run: number): string {
  const fd = openSync(file, 'w');
  const writer = new TraceWriter({ write: (bytes) => void writeSync(fd, bytes) }, header());
  for (let site = 1; site <= 8; site++) {
    writer.defineSite(site, {
      frames: [{ file: `sim.js`, line: site * 10, column: 5, fn: null, package: null }],
      skipped: 0,
    });
  }
  const differAt = shape === 'once-near-end' ? size - 101 : -1;
  for (let i = 0; i < size; i++) {
    const differs = run === 1 && (i === differAt || (shape === 'one-percent' && i % 100 === 51));
    let full = false;
    if (i % 1000 === 999) full = writer.object(Api.stdout, Tag.string, 8, 0, differs ? 'other\n' : `line ${i}\n`);
    else if (i % 10 === 0) full = writer.number(Api.dateNow, Tag.f64, 2, 0, 1e12 + i + run);
    else if (differs) full = writer.number(Api.hrtime, Tag.hrtime, 3, 0, i);
    else
      full = writer.number(
        Api.mathRandom,
        Tag.f64 | (1 << 4),
        i < 64 || i % 256 === 0 ? 1 : 0,
        0,
        ((i * 2654435761) % 1000) / 1000,
      );
    if (full) writer.flush();
  }
  writer.end(0);
  closeSync(fd);
  return file;
}
