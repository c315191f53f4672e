/**
 * How many re-runs replay bisection needs to confirm a cause, against how many uncontrolled calls
 * the run made: a program of N Math.random draws whose draw at 70% decides its output, checked
 * with the real CLI (`check --runs 2 --json`). Bisection should need about log2(N) + a few.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { BENCH_FIXTURES, CLI, table } from './common.js';

export function benchBisect(sizes: readonly number[]): void {
  const rows: string[][] = [];
  for (const size of sizes) {
    const started = process.hrtime.bigint();
    const child = spawnSync(
      process.execPath,
      [CLI, 'check', '--runs', '2', '--json', '--', process.execPath, join(BENCH_FIXTURES, 'draws.cjs'), String(size)],
      { encoding: 'utf8', maxBuffer: 1 << 26 },
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const report = JSON.parse(child.stdout) as {
      confirmation: { status: string; runs: number; pinned: number; total: number } | null;
      cause: { site: { line: number } | null } | null;
    };
    const confirmation = report.confirmation;
    rows.push([
      size.toExponential(0),
      String(confirmation?.total ?? '-'),
      String(confirmation?.runs ?? '-'),
      Math.log2(Math.max(2, size)).toFixed(1),
      confirmation?.status ?? 'not run',
      `${confirmation?.pinned ?? '-'} (expect ${Math.floor(size * 0.7) + 1})`,
      seconds.toFixed(1),
    ]);
  }
  console.log('\nReplay bisection: re-runs needed to confirm the cause (check --runs 2)');
  console.log(table(['draws', 'pinnable', 're-runs', 'log2(N)', 'status', 'pinned', 'seconds'], rows));
}
