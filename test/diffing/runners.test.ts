/**
 * The test runners' own calls and outputs (diffing/runners.ts), rule by rule, on synthetic traces:
 * a runner's timing, ids and report are left out, the test's calls are kept, and a process no
 * runner drove is compared whole. test/diffing/test-runners.test.ts runs the real runners.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import type { IgnoreRules } from '../../diffing/ignore.js';
import { sameOutputs } from '../../diffing/outputs.js';
import { tempDir } from '../helpers.js';
import { writeTrace, type SyntheticEvent } from '../synthetic.js';

const NONE: IgnoreRules = { sites: [], packages: [] };

/** Two runs of one process, compared; `lineage` names the process (node --test children are `0.@file`). */
function runs(a: readonly SyntheticEvent[], b: readonly SyntheticEvent[], ignore: IgnoreRules = NONE, lineage = '0') {
  const dir = tempDir();
  for (const [run, events] of [
    ['a', a],
    ['b', b],
  ] as const) {
    mkdirSync(join(dir, run));
    writeTrace(join(dir, run), lineage, events, { header: { lineage } });
  }
  return { dir, comparison: compare(join(dir, 'a'), join(dir, 'b'), { ignore }) };
}

const JEST_CLOCK = [
  'graceful-fs@4.2.11/polyfills.js:309',
  'jest-haste-map@30.5.1/build/index.js:40',
  '@jest/core@30.5.2/build/index.js:9',
];
const JEST_CACHE = ['@jest/test-sequencer@30.5.2/build/index.js:12', '@jest/core@30.5.2/build/index.js:80'];
const TEST_WRITE = ['sim.test.js:12', 'jest-circus@30.5.2/build/index.js:40'];
const jestRun = (clock: number, durations: string): SyntheticEvent[] => [
  { api: 'stat', stack: JEST_CLOCK, value: clock },
  { api: 'dateNow', stack: JEST_CLOCK, value: clock },
  { api: 'fileWrite', stack: TEST_WRITE, value: 'result 42' },
  { api: 'fileWrite', stack: JEST_CACHE, value: durations },
];

test("jest: stat times, clocks and the perf cache written by a stack that holds Jest and no project frame are the runner's", () => {
  const { comparison } = runs(jestRun(1, '{"sim.test.js":[0,57]}'), jestRun(2, '{"sim.test.js":[0,61]}'));
  assert.equal(comparison.verdict, 'agree');
  assert.deepEqual(
    comparison.runners.map((runner) => runner.name),
    ['jest'],
  );
  // The same runs with the runners' rules off: the perf cache Jest writes differs (stat times, new
  // in every run, are not values that should agree).
  const off = runs(jestRun(1, '{"sim.test.js":[0,57]}'), jestRun(2, '{"sim.test.js":[0,61]}'), {
    ...NONE,
    runners: 'off',
  }).comparison;
  assert.equal(off.diverging?.first?.reason, 'output');
  assert.deepEqual(off.runners, []);
});

test("jest: what the test wrote is still compared, below the runner's frames", () => {
  const a = jestRun(1, '{"sim.test.js":[0,57]}');
  const b = jestRun(1, '{"sim.test.js":[0,57]}').map((event) =>
    event.api === 'fileWrite' ? { ...event, value: 'result 43' } : event,
  );
  const { comparison } = runs(a, b);
  assert.equal(comparison.diverging?.first?.reason, 'output');
  assert.equal(comparison.diverging?.output?.a?.event.api, 'fs.writeFile');
});

test('a package shared with builds (jest-worker, vite) does not make a process a test run', () => {
  const build = (stamp: string): SyntheticEvent[] => [
    { api: 'fileWrite', stack: ['vite@7.3.8/dist/node/build.js:5'], value: stamp },
  ];
  const { comparison } = runs(build('bundle v1'), build('bundle v2'));
  assert.deepEqual(comparison.runners, []);
  assert.equal(comparison.verdict, 'diverge');
  // A project that names the runner has vite's work in a vitest run left out.
  assert.equal(
    runs(build('bundle v1'), build('bundle v2'), { ...NONE, runners: ['vitest'] }).comparison.verdict,
    'agree',
  );
});

test("vitest: RPC id draws and temp-file writes of vitest, vite and vite-node are the runner's", () => {
  const run = (draw: number, temp: string): SyntheticEvent[] => [
    {
      api: 'mathRandom',
      stack: ['vitest@3.2.7/dist/chunks/index.js:153', 'vitest@3.2.7/dist/worker.js:71'],
      value: draw,
    },
    {
      api: 'fileWrite',
      stack: ['vite-node@3.2.4/dist/client.mjs:20', 'vitest@3.2.7/dist/chunks/coverage.js:2558'],
      value: temp,
    },
    { api: 'mathRandom', stack: ['sim.test.js:7', '@vitest/runner@3.2.7/dist/chunk-hooks.js:155'], value: 0.5 },
  ];
  const { comparison } = runs(run(0.1, '.tmp-1-abc'), run(0.9, '.tmp-2-def'));
  assert.deepEqual(
    comparison.runners.map((runner) => runner.name),
    ['vitest'],
  );
  assert.equal(comparison.verdict, 'agree');
});

test('mocha: id draws and the "passing (5ms)" line are the runner\'s; a call with no stack taken beside the test\'s stays in', () => {
  const run = (ms: number, unsampled: number): SyntheticEvent[] => [
    {
      api: 'mathRandom',
      stack: ['nanoid@3.3.11/non-secure/index.cjs:20', 'mocha@11.8.0/lib/utils.js:640'],
      value: ms / 100,
    },
    { api: 'stdout', stack: ['mocha@11.8.0/lib/reporters/base.js:421'], value: `  1 passing (${ms}ms)\n` },
    { api: 'mathRandom', stack: ['test/sim.spec.js:5', 'mocha@11.8.0/lib/runnable.js:380'], ctx: [2], value: 0.5 },
    ...Array.from({ length: unsampled }, (): SyntheticEvent => ({ api: 'mathRandom', ctx: [2], value: 0.5 })),
  ];
  assert.equal(runs(run(5, 1), run(17, 1)).comparison.verdict, 'agree');
  // In the test's context a draw without a stack cannot be told from the test's: one more is a divergence.
  assert.equal(runs(run(5, 1), run(5, 2)).comparison.diverging?.first?.reason, 'structure');
});

test("node --test: in a child the runner started, a stack of Node's internals alone is the runner's", () => {
  const run = (duration: string): SyntheticEvent[] => [
    { api: 'hrtimeBigint', stack: [], value: 1 },
    { api: 'stdout', stack: [], value: `test:complete duration_ms ${duration}` },
    { api: 'fileWrite', stack: ['sim.test.js:14'], value: 'result 42' },
  ];
  const child = runs(run('0.5'), run('0.7'), NONE, '0.@sim_test_js').comparison;
  assert.deepEqual(
    child.runners.map((runner) => runner.name),
    ['node:test'],
  );
  assert.equal(child.verdict, 'agree');
  // Outside node --test, what Node's own code wrote is the program's output like any other.
  assert.equal(runs(run('0.5'), run('0.7')).comparison.diverging?.first?.reason, 'output');
});

test('sameOutputs judges a re-run by the outputs the comparison kept', () => {
  const { dir, comparison } = runs(jestRun(1, '{"sim.test.js":[0,57]}'), jestRun(2, '{"sim.test.js":[0,61]}'));
  assert.equal(sameOutputs(join(dir, 'a'), join(dir, 'b'), null, comparison.runners), true);
  assert.equal(sameOutputs(join(dir, 'a'), join(dir, 'b')), false, 'with no runner, the perf caches differ');
  assert.equal(sameOutputs(join(dir, 'a'), join(dir, 'b'), { lineage: '0', outputs: 1 }, comparison.runners), true);
});

test("a call without a stack in a context where every stack is the runner's is the runner's; beside a test frame it is compared", () => {
  const retries = (count: number): SyntheticEvent[] => [
    { api: 'dateNow', stack: JEST_CLOCK, ctx: [1], value: 1 },
    ...Array.from({ length: count }, (_, i): SyntheticEvent => ({ api: 'dateNow', ctx: [1], value: 2 + i })),
    { api: 'fileWrite', stack: TEST_WRITE, ctx: [2], value: 'result 42' },
  ];
  assert.equal(runs(retries(3), retries(5)).comparison.verdict, 'agree', "a retry loop's unsampled clock reads");
  const inTest = (count: number): SyntheticEvent[] => [
    ...retries(0),
    { api: 'mathRandom', stack: ['sim.test.js:9', 'jest-circus@30.5.2/build/index.js:40'], ctx: [2], value: 0.5 },
    ...Array.from({ length: count }, (): SyntheticEvent => ({ api: 'mathRandom', ctx: [2], value: 0.5 })),
  ];
  assert.equal(runs(inTest(1), inTest(2)).comparison.verdict, 'diverge', "a test body's unsampled draw is the test's");
});
