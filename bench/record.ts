/**
 * Recording overhead per call, for each family: the same loop run without and with the hook, in
 * alternating child processes, in one run. Prints the ratio hooked/raw (medians over the rounds),
 * the target of issue #8 where there is one, and the trace's bytes per event. Ratios, not times:
 * the machines are shared and noisy. The loop counts the process's CPU time, not the wall clock,
 * so a neighbour's load stretches neither side; the hook's own work (its writes included) is CPU.
 *
 * Where a target is missed, two more figures say where the floor is: the ratio with call sites
 * taken only for the first call (DETDRIFT_SITES=1/2^32: what the sampled stacks cost), and what
 * the trace writer alone takes per event (encoding and CRC-32 in tracer/, which every event pays).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readdirSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { TraceReader } from '../tracer/reader.js';
import { TraceWriter } from '../tracer/writer.js';
import { createMirror } from '../tracer/mirror.js';
import { MirroredWriter } from '../tracer/mirrored-writer.js';
import { header } from '../test/synthetic.js';
import { BENCH_FIXTURES, REGISTER, median, table } from './common.js';

/**
 * Calls per child, sized so a raw loop runs tens of milliseconds, and the most hooked/raw may be
 * (issue #8; none where the issue sets none). A timer's call is one timer scheduled and fired: two
 * events, and an async context whose definition the trace gets when the callback records.
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
  ['setTimeout', 200_000, null],
  ['setImmediate', 500_000, null],
];

/** `only`: the APIs to measure (all by default). */
export function benchRecord(rounds: number, only?: readonly string[]): void {
  const rows: string[][] = [];
  for (const [name, count, target] of CASES) {
    if (only && !only.includes(name)) continue;
    const raw: number[] = [];
    const hooked: number[] = [];
    const siteless: number[] = [];
    let bytesPerEvent = NaN;
    for (let round = 0; round < rounds; round++) {
      raw.push(runLoop(name, count, null).nsPerCall);
      const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-'));
      hooked.push(runLoop(name, count, dir).nsPerCall);
      bytesPerEvent = traceBytesPerEvent(dir);
      if (target !== null) siteless.push(runLoop(name, count, dir, NO_SITES).nsPerCall);
      rmSync(dir, { recursive: true, force: true });
    }
    const rawNs = median(raw);
    const ratio = median(hooked) / rawNs;
    const verdict = target === null ? '-' : ratio <= target ? 'yes' : 'no';
    const withoutSites = target === null ? '-' : `${(median(siteless) / rawNs).toFixed(2)}x`;
    rows.push([
      name,
      rawNs.toFixed(1),
      median(hooked).toFixed(1),
      `${ratio.toFixed(2)}x`,
      target === null ? '-' : `${target}x`,
      verdict,
      withoutSites,
      bytesPerEvent.toFixed(1),
    ]);
  }
  console.log(`\nRecording overhead per call (observe mode, CPU time, median of ${rounds} alternating rounds)`);
  console.log(
    table(['api', 'raw ns/call', 'hooked ns/call', 'ratio', 'target', 'meets', 'no sites', 'trace bytes/event'], rows),
  );
  console.log(
    `the trace writer alone: ${writerNsPerEvent().toFixed(1)} ns per 12-byte event, encoded, checksummed and written`,
  );
  const mirrored = writerNsPerEvent(true).toFixed(1);
  console.log(`a worker's (building its chunk where its parent can read it): ${mirrored} ns per event`);
}

/** Call sites for the first call only: what is left is the wrapper, the recorder and the writer. */
const NO_SITES = '1/4294967296';

function runLoop(name: string, count: number, traceDir: string | null, sites?: string): { nsPerCall: number } {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  if (traceDir) Object.assign(env, { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: traceDir });
  if (sites) env.DETDRIFT_SITES = sites;
  const child = spawnSync(process.execPath, [join(BENCH_FIXTURES, 'loop.mjs'), name, String(count)], {
    env,
    encoding: 'utf8',
  });
  if (child.status !== 0) throw new Error(`${name} failed (${child.status}): ${child.stderr}`);
  return JSON.parse(child.stdout) as { nsPerCall: number };
}

/**
 * CPU time per event of a TraceWriter fed numbers as a wrapper feeds it, into a real file; with
 * `mirrored`, a worker's MirroredWriter.
 */
function writerNsPerEvent(mirrored = false): number {
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-bench-'));
  const fd = openSync(join(dir, 'writer.bin'), 'w');
  try {
    const sink = { write: (bytes: Uint8Array) => void writeSync(fd, bytes) };
    const writer = mirrored ? new MirroredWriter(sink, header(), createMirror()) : new TraceWriter(sink, header());
    const events = 2_000_000;
    const start = process.cpuUsage();
    for (let i = 0; i < events; i++) if (writer.number(Api.mathRandom, Tag.f64, 0, 0, i / events)) writer.flush();
    const { user, system } = process.cpuUsage(start);
    return ((user + system) * 1000) / events;
  } finally {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  }
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
