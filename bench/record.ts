/**
 * Recording overhead per call, for each family: the same loop run without and with the hook, in
 * alternating child processes, in one run. Prints the ratio hooked/raw (medians over the rounds)
 * and the trace's bytes per event. Ratios, not times: the machines are shared and noisy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TraceReader } from '../tracer/reader.js';
import { BENCH_FIXTURES, REGISTER, median, table } from './common.js';

/** Calls per child, sized so a raw loop runs tens of milliseconds. */
const CASES: ReadonlyArray<readonly [string, number]> = [
  ['Date.now', 2_000_000],
  ['new Date', 1_000_000],
  ['performance.now', 2_000_000],
  ['process.hrtime', 1_000_000],
  ['process.hrtime.bigint', 2_000_000],
  ['Math.random', 5_000_000],
  ['crypto.randomUUID', 500_000],
  ['crypto.randomBytes', 200_000],
  ['crypto.randomInt', 500_000],
  ['crypto.getRandomValues', 500_000],
  ['os.hostname', 200_000],
  ['fs.readdirSync', 50_000],
  ['fs.statSync', 100_000],
];

export function benchRecord(rounds: number): void {
  const rows: string[][] = [];
  for (const [name, count] of CASES) {
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
    rows.push([name, rawNs.toFixed(1), hookedNs.toFixed(1), `${(hookedNs / rawNs).toFixed(2)}x`, bytesPerEvent.toFixed(1)]);
  }
  console.log(`\nRecording overhead per call (observe mode, median of ${rounds} alternating rounds)`);
  console.log(table(['api', 'raw ns/call', 'hooked ns/call', 'ratio', 'trace bytes/event'], rows));
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
