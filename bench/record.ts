/**
 * Recording overhead per call, for each family: the same loop run without and with the hook, in
 * alternating child processes, in one run. Prints the ratio hooked/raw (medians over the rounds),
 * the target of issue #8 where there is one, and the trace's bytes per event. Ratios, not times:
 * the machines are shared and noisy. The loop counts the process's CPU time, not the wall clock,
 * so a neighbour's load stretches neither side; the hook's own work (its writes included) is CPU.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceReader } from '../tracer/reader.js';
import { BENCH_FIXTURES, REGISTER, median, table } from './common.js';

/**
 * Calls per child, sized so a raw loop runs tens of milliseconds, and the most hooked/raw may be
 * (issue #8; none where the issue sets none).
 */
const CASES: ReadonlyArray<readonly [string, number, number | null]> = [
  ['Date.now', 2_000_000, 3],
  ['new Date', 1_000_000, null],
  ['performance.now', 2_000_000, 3],
  ['process.hrtime', 1_000_000, null],
  ['process.hrtime.bigint', 2_000_000, 3],
  ['Math.random', 5_000_000, 10],
  ['crypto.randomUUID', 500_000, 1.2],
  ['crypto.randomBytes', 200_000, 1.2],
  ['crypto.randomInt', 500_000, 1.2],
  ['crypto.getRandomValues', 500_000, 1.2],
  ['os.hostname', 200_000, null],
  ['fs.readdirSync', 50_000, null],
  ['fs.statSync', 100_000, null],
];

/** `only`: the APIs to measure (all by default). */
export function benchRecord(rounds: number, only?: readonly string[]): void {
  const rows: string[][] = [];
  for (const [name, count, target] of CASES) {
    if (only && !only.includes(name)) continue;
    const raw: number[] = [];
    const hooked: number[] = [];
    let bytesPerEvent = NaN;
    for (let round = 0; round < rounds; round++) {
      raw.push(runLoop(name, count, null).nsPerCall);
      const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-'));
      hooked.push(runLoop(name, count, dir).nsPerCall);
      bytesPerEvent = traceBytesPerEvent(dir);
      rmSync(dir, { recursive: true, force: true });
    }
    const rawNs = median(raw);
    const hookedNs = median(hooked);
    const ratio = hookedNs / rawNs;
    const verdict = target === null ? '-' : ratio <= target ? 'yes' : 'no';
    rows.push([name, rawNs.toFixed(1), hookedNs.toFixed(1), `${ratio.toFixed(2)}x`, target === null ? '-' : `${target}x`, verdict, bytesPerEvent.toFixed(1)]);
  }
  console.log(`\nRecording overhead per call (observe mode, CPU time, median of ${rounds} alternating rounds)`);
  console.log(table(['api', 'raw ns/call', 'hooked ns/call', 'ratio', 'target', 'meets', 'trace bytes/event'], rows));
}

function runLoop(name: string, count: number, traceDir: string | null): { nsPerCall: number } {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  if (traceDir) Object.assign(env, { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: traceDir });
  const child = spawnSync(process.execPath, [join(BENCH_FIXTURES, 'loop.mjs'), name, String(count)], { env, encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`${name} failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as { nsPerCall: number };
}

function traceBytesPerEvent(dir: string): number {
  let bytes = 0;
  let events = 0;
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    const reader = TraceReader.open(file);
    for (const _event of reader.events()) events++;
    reader.close();
    bytes += statSync(file).size;
  }
  return bytes / events;
}
