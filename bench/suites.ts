/**
 * Real test suites under the hook, what a team pays for `detdrift record -- npx jest`: each suite
 * of bench/fixtures/suites (a Jest suite of an HTTP service, an async-heavy Vitest suite) runs
 * plain and under `detdrift record` (the bin's bundle), alternating, with the runner's defaults (its own
 * worker pool). Prints the median wall and CPU time of each and their ratios, CPU counting every
 * process of the run (the runner's workers, npx, and the CLI's own under record). The record run
 * must have traced the runner: its summary's event counts are printed, and the bench stops when
 * the runner's processes recorded fewer events than the suite has tests (each test reads a clock).
 *
 * A suite installs with `npm ci` once into `$DETDRIFT_BENCH_CACHE` (by default
 * `detdrift-bench-suites` in the system's temporary directory), again only when its lockfile
 * changes; its own files are copied there before each bench.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { BENCH_FIXTURES, CLI, type TimedRun, benchEnv, median, runTimed, table } from './common.js';

interface Suite {
  /** its folder in bench/fixtures/suites */
  readonly name: string;
  readonly command: readonly string[];
}

const SUITES: readonly Suite[] = [
  { name: 'jest-http', command: ['npx', 'jest'] },
  { name: 'vitest-async', command: ['npx', 'vitest', 'run'] },
];
const TARGET = 1.3;

interface Recorded {
  readonly processes: number;
  /** events in the traces of the runner's processes: all but the first, npx's */
  readonly runnerEvents: number;
  readonly events: number;
}

export function benchSuites(rounds: number): void {
  const cache = process.env.DETDRIFT_BENCH_CACHE ?? join(tmpdir(), 'detdrift-bench-suites');
  const rows: string[][] = [];
  for (const suite of SUITES) {
    const dir = install(suite, cache);
    const out = mkdtempSync(join(tmpdir(), 'detdrift-bench-suite-trace-'));
    try {
      const env = benchEnv();
      const plain = () => runTimed(suite.command, { cwd: dir, env });
      const record = () =>
        runTimed([process.execPath, CLI, 'record', '--out', out, '--', ...suite.command], { cwd: dir, env });
      // one unmeasured run of each: the runner's transform cache and the hook's code cache are then warm
      const tests = passed(suite, plain());
      record();
      const samples = { plain: [] as TimedRun[], record: [] as TimedRun[] };
      let recorded: Recorded | undefined;
      for (let round = 0; round < rounds; round++) {
        samples.plain.push(plain());
        const run = record();
        samples.record.push(run);
        if (passed(suite, run) !== tests)
          throw new Error(`${suite.name}: the recorded run passed another number of tests`);
        recorded = summary(run.stderr);
        if (recorded.runnerEvents < tests) {
          throw new Error(
            `${suite.name}: the runner's processes recorded ${recorded.runnerEvents} events for ${tests} tests: was the run hooked?\n${run.stderr}`,
          );
        }
      }
      const wall = (runs: TimedRun[]) => median(runs.map((run) => run.wallMs));
      const cpu = (runs: TimedRun[]) => median(runs.map((run) => run.cpuMs));
      rows.push([
        `${suite.name} (${suite.command.join(' ')})`,
        String(tests),
        `${recorded!.events} in ${recorded!.processes}`,
        wall(samples.plain).toFixed(0),
        wall(samples.record).toFixed(0),
        `${(wall(samples.record) / wall(samples.plain)).toFixed(2)}x`,
        cpu(samples.plain).toFixed(0),
        cpu(samples.record).toFixed(0),
        `${(cpu(samples.record) / cpu(samples.plain)).toFixed(2)}x`,
      ]);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  console.log(
    `\nTest suites, plain and under detdrift record (median of ${rounds} alternating rounds, CPU of every process)`,
  );
  console.log(
    table(['suite', 'tests', 'events in processes', 'wall ms', 'record', 'wall ÷', 'cpu ms', 'record', 'cpu ÷'], rows),
  );
  console.log(`issue #25's target: record ÷ plain at most ${TARGET}x`);
}

/** The suite's folder in the cache, installed from its lockfile, with its files fresh from the fixture. */
function install(suite: Suite, cache: string): string {
  const source = join(BENCH_FIXTURES, 'suites', suite.name);
  const dir = join(cache, suite.name);
  const digest = createHash('sha256')
    .update(readFileSync(join(source, 'package-lock.json')))
    .digest('hex');
  const stamp = join(dir, 'node_modules', '.bench-lock-digest');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== digest) {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    cpSync(join(source, 'package.json'), join(dir, 'package.json'));
    cpSync(join(source, 'package-lock.json'), join(dir, 'package-lock.json'));
    console.error(`installing ${suite.name} into ${dir} (npm ci)`);
    const npm = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, env: benchEnv(), stdio: 'inherit' });
    if (npm.status !== 0) throw new Error(`npm ci failed in ${dir} (${npm.status})`);
    writeFileSync(stamp, digest);
  }
  cpSync(source, dir, { recursive: true, filter: (file) => basename(file) !== 'node_modules' });
  return dir;
}

/** How many tests the runner says passed (Jest: `Tests: 406 passed`; Vitest: `Tests  430 passed`). */
function passed(suite: Suite, run: TimedRun): number {
  const match = /Tests:?\s+(\d+) passed/.exec(stripVTControlCharacters(run.stdout + run.stderr));
  if (!match) throw new Error(`${suite.name}: no count of passed tests in its output:\n${run.stdout}\n${run.stderr}`);
  return Number(match[1]);
}

/** record's summary on stderr: one `detdrift: FILE: N events, ...` line per trace, npx's first. */
function summary(stderr: string): Recorded {
  const counts = [...stderr.matchAll(/^detdrift: (.+?): (\d+) events/gm)].map((match) => ({
    file: basename(match[1]!),
    events: Number(match[2]),
  }));
  return {
    processes: counts.length,
    runnerEvents: counts.filter(({ file }) => file !== '0.ddtrace').reduce((sum, { events }) => sum + events, 0),
    events: counts.reduce((sum, { events }) => sum + events, 0),
  };
}
