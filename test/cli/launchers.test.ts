/**
 * `detdrift check` through the package managers users type (test/launcher-fixtures.ts): a launcher
 * is transparent. Its own calls (npm lists its logs folder every run) are never compared or blamed,
 * it leaves no trace, and the program it runs is named as under bare node: `npm test` running
 * `node sim.js` gives the trace `0`, and the same verdict and cause as `node sim.js`.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Report } from '../../report/types.js';
import { causeOf, lineOf, reportOf } from '../cli-fixtures.js';
import { CLI, readTraces, runPlain, tempDir } from '../helpers.js';
import { DRAW, launchedProject, launcherEnv } from '../launcher-fixtures.js';

const POSIX = { skip: process.platform === 'win32' ? 'the launchers are linked onto PATH as symlinks' : false };

interface Case {
  readonly command: readonly string[];
  /** how many times it runs in a row: three for the launchers as users type them */
  readonly runs: number;
  /** the traces each run leaves, each with the command its process ran */
  readonly traces: Readonly<Record<string, string>>;
}

const SIM = { '0': 'node sim.js' };
const NODE_TEST = { '0': 'node', '0.@test+sim_test_js': 'node test/sim.test.js' };
const CASES: readonly Case[] = [
  { command: ['node', 'sim.js'], runs: 2, traces: SIM },
  { command: ['npm', 'test'], runs: 3, traces: SIM },
  { command: ['npx', 'tool'], runs: 3, traces: { '0': 'node node_modules/.bin/tool' } },
  { command: ['pnpm', 'test'], runs: 3, traces: SIM },
  { command: ['yarn', 'test'], runs: 3, traces: SIM },
  // npm runs prestaged, staged and poststaged one after the other: each claims the name in turn
  {
    command: ['npm', 'run', 'staged'],
    runs: 2,
    traces: { '0': 'node sim.js pre', '0~2': 'node sim.js', '0~3': 'node sim.js post' },
  },
  // npm's shell runs sh, which runs node: neither is Node, and the name passes through both
  { command: ['npm', 'run', 'shell'], runs: 2, traces: SIM },
  { command: ['node', '--test'], runs: 2, traces: NODE_TEST },
  { command: ['npm', 'run', 'node-test'], runs: 2, traces: NODE_TEST },
  // the program runs `npm run test` itself: that npm's child takes the program's first child slot
  { command: ['npm', 'run', 'spawns'], runs: 2, traces: { '0': 'node spawns.js', '0.1': 'node sim.js' } },
];

/** Made once, on the first test's demand: every case runs in the one project, with the one PATH. */
let shared: { dir: string; env: Record<string, string | undefined> } | null = null;
const fixture = () => (shared ??= { dir: launchedProject(), env: launcherEnv() });

/** `check` of `command` in the fixture, which must exit with `status`: its report, and where its runs are. */
function check(command: readonly string[], status: 0 | 1, ...options: string[]): { report: Report; out: string } {
  const { dir, env } = fixture();
  const out = join(tempDir(), 'runs');
  const args = [CLI, 'check', '--seed', '7', '--out', out, ...options, '--json', '--', ...command];
  return { report: reportOf(runPlain(args, { cwd: dir, env }), status), out };
}

for (const kase of CASES) {
  test(`${kase.command.join(' ')}: ${kase.runs} runs agree, and only the program's processes are traced`, POSIX, () => {
    const { report, out } = check(kase.command, 0, '--runs', String(kase.runs), '--mode', 'control');
    assert.equal(report.verdict, 'agree', JSON.stringify(causeOf(report)));
    for (let run = 1; run <= kase.runs; run++) {
      const commands = Object.fromEntries(
        [...readTraces(join(out, `run-${run}`))].map(([lineage, trace]) => [lineage, trace.header.command.join(' ')]),
      );
      assert.deepEqual(commands, kase.traces, `run ${run}'s traces`);
    }
    const compared = report.differences.processes.map((entry) => entry.process);
    assert.deepEqual(compared, Object.keys(kase.traces));
  });
}

test('a draw in the program: npm test gives the verdict and cause that bare node gives', POSIX, () => {
  const line = lineOf(DRAW, 'Math.random');
  const bare = causeOf(check(['node', 'draw.js'], 1, '--no-confirm').report);
  // confirmed by replay through npm too: each replay's program is fed trace 0 again
  const launched = check(['npm', 'run', 'draw'], 1).report;
  assert.deepEqual(
    { ...bare, process: '0' },
    { ...causeOf(launched), confidence: 'heuristic', process: launched.firstDivergence?.process },
  );
  assert.deepEqual(
    { verdict: bare.verdict, api: bare.api, site: bare.site },
    { verdict: 'diverge', api: 'Math.random', site: `draw.js:${line}` },
  );
  assert.equal(causeOf(launched).confidence, 'replay-confirmed');
});

test('a launcher that starts no Node.js process leaves no trace, and record says why', POSIX, () => {
  const { dir, env } = fixture();
  const out = join(tempDir(), 'none');
  const run = runPlain([CLI, 'record', '--out', out, '--', 'npm', 'run', 'echo'], { cwd: dir, env });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /no trace written to .*: .*npm, npx, pnpm and yarn are launchers/);
});
