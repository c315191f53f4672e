import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Api } from '../../tracer/apis.js';
import { eventsOf, project, runHooked, runHookedOk, siteOf, type HookedRun, type Trace } from '../helpers.js';

function traceOf(run: HookedRun): Trace {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return run.traces.get('0')!;
}

test('Math.random values in the trace are the ones the program got, with their sites', () => {
  const dir = project({
    'app.mjs': [
      "import { draw } from './lib.cjs';",
      'const seen = [Math.random()];',
      'seen.push(draw());',
      'seen.push(Math.random.call(null));',
      'console.log(JSON.stringify(seen));',
    ].join('\n'),
    'lib.cjs': 'exports.draw = function draw() {\n  return Math.random();\n};\n',
  });
  const run = runHooked(['app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  const events = eventsOf(trace, 'Math.random');
  // JSON prints the shortest string that parses back to the same double, so equality is exact.
  assert.deepEqual(
    events.map((event) => event.value),
    JSON.parse(run.stdout),
  );
  assert.deepEqual(
    events.map((event) => [siteOf(trace, event)?.file, siteOf(trace, event)?.line, siteOf(trace, event)?.fn]),
    [
      ['app.mjs', 2, null],
      ['lib.cjs', 2, 'draw'],
      ['app.mjs', 4, null],
    ],
  );
});

const LOOP = 'let sum = 0;\nfor (let i = 0; i < 10000; i++) sum += Math.random();\nconsole.log(sum > 0);\n';

/** The 0-based ordinals of the Math.random calls whose stack was taken. */
function sampled(trace: Trace): number[] {
  const ordinals: number[] = [];
  eventsOf(trace, 'Math.random').forEach((event, ordinal) => {
    if (event.site !== 0) ordinals.push(ordinal);
  });
  return ordinals;
}

/**
 * The ordinals DETDRIFT_SITES=first/every/doubling samples, from the rule's closed form: the calls
 * below `first`, then stretch k (k = 0, 1, ...) of `doubling` samples, which starts at call
 * every·doubling·(2^k − 1) and samples one call in every·2^k (doubling 0: one stretch, forever).
 */
function expectedOrdinals(first: number, every: number, doubling: number, calls: number): number[] {
  const ordinals: number[] = [];
  for (let n = 0; n < calls; n++) {
    const k = doubling === 0 ? 0 : Math.floor(Math.log2(n / (every * doubling) + 1));
    const start = every * doubling * (2 ** k - 1);
    if (n < first || (n - start) % (every * 2 ** k) === 0) ordinals.push(n);
  }
  return ordinals;
}

test('a hot loop gets sites for its first 64 calls, then one call in 256, the stride doubling after 64 samples, the same calls in every run', () => {
  const dir = project({ 'loop.cjs': LOOP });
  const runs = [runHooked(['loop.cjs'], { cwd: dir }), runHooked(['loop.cjs'], { cwd: dir })];
  const [one, two] = runs.map(traceOf) as [Trace, Trace];
  assert.equal(eventsOf(one, 'Math.random').length, 10000, 'every call is an event, sampled or not');
  assert.deepEqual(one.header.sites, { first: 64, every: 256, doubling: 64 });
  const ordinals = sampled(one);
  assert.deepEqual(ordinals, expectedOrdinals(64, 256, 64, 10000));
  assert.deepEqual(sampled(two), ordinals, 'two runs sample the same call ordinals');
  // One line, one site: the sampled calls share an interned stack.
  const sites = new Set(
    eventsOf(one, 'Math.random')
      .filter((event) => event.site !== 0)
      .map((event) => event.site),
  );
  assert.equal(sites.size, 1);
  assert.deepEqual(
    [...sites].map((site) => one.sites.get(site)?.frames[0]?.line),
    [2],
  );
});

test('DETDRIFT_SITES=first/every[/doubling] changes which calls get sites: a fixed stride without doubling, else doubling after each `doubling` samples', () => {
  const dir = project({ 'loop.cjs': LOOP });
  const fixed = traceOf(runHooked(['loop.cjs'], { cwd: dir, env: { DETDRIFT_SITES: '5/1000' } }));
  assert.deepEqual(fixed.header.sites, { first: 5, every: 1000, doubling: 0 });
  assert.deepEqual(sampled(fixed), expectedOrdinals(5, 1000, 0, 10000));
  const doubling = traceOf(runHooked(['loop.cjs'], { cwd: dir, env: { DETDRIFT_SITES: '2/10/3' } }));
  const ordinals = sampled(doubling);
  assert.deepEqual(ordinals.slice(0, 12), [0, 1, 10, 20, 30, 50, 70, 90, 130, 170, 210, 290]);
  assert.deepEqual(ordinals, expectedOrdinals(2, 10, 3, 10000));
});

test("a runner's thousands of draws leave the first draw of each later async context its stack: a test body's first call has its site", () => {
  // The "runner" draws 5000 times from one line; each "test" then runs in an immediate of its own.
  const dir = project({
    'runner.cjs': `for (let i = 0; i < 5000; i++) Math.random();
for (const name of ['a', 'b']) setImmediate(() => {
  Math.random();
  Math.random();
});
`,
  });
  const trace = traceOf(runHooked(['runner.cjs'], { cwd: dir }));
  const draws = eventsOf(trace, 'Math.random');
  assert.equal(draws.length, 5004);
  // each test's first draw is taken, its second is left to the count as any other call
  assert.deepEqual(
    draws.slice(5000).map((event) => siteOf(trace, event)?.line),
    [3, undefined, 3, undefined],
  );
});

test('draws in thousands of new contexts (a loop of awaits) take stacks thinned as the count thins calls, the same in every run', () => {
  const dir = project({ 'awaits.mjs': 'for (let i = 0; i < 20000; i++) { await null; Math.random(); }\n' });
  const [one, two] = [0, 1].map(() => traceOf(runHooked(['awaits.mjs'], { cwd: dir })));
  const taken = sampled(one!);
  assert.deepEqual(sampled(two!), taken, 'two runs sample the same calls');
  // the first 64 new contexts, then every 2nd, the stride doubling after each 64 samples: some 400, not 20000
  assert.ok(taken.length > 64 && taken.length < 600, `${taken.length} stacks taken`);
});

test('DETDRIFT_STACKS_AT takes the stack of exactly the calls asked for, in the process asked for, whatever the sampling', () => {
  // Two lines that draw in turn: an even ordinal is line 2's call, an odd one line 3's.
  const dir = project({ 'turns.cjs': 'for (let i = 0; i < 5000; i++) {\n  Math.random();\n  Math.random();\n}\n' });
  const asked = [4001, 9998, 7000];
  const stacksAt = [...asked.map((ordinal) => `0:${Api.mathRandom}:${ordinal}`), `0.1:${Api.mathRandom}:3`].join(',');
  const trace = traceOf(
    runHooked(['turns.cjs'], { cwd: dir, env: { DETDRIFT_SITES: '1/100000/0', DETDRIFT_STACKS_AT: stacksAt } }),
  );
  assert.deepEqual(
    sampled(trace),
    [0, 4001, 7000, 9998],
    "the first call, then the three asked for; the other lineage's ask is not this process's",
  );
  const events = eventsOf(trace, 'Math.random');
  assert.deepEqual(
    asked.map((ordinal) => siteOf(trace, events[ordinal]!)?.line),
    [3, 2, 2],
    "each stack is its own call's",
  );
  assert.deepEqual(trace.header.sites.at, [
    [Api.mathRandom, 4001],
    [Api.mathRandom, 9998],
    [Api.mathRandom, 7000],
  ]);
});

test('a malformed DETDRIFT_STACKS_AT is refused with a code, and the program runs unrecorded', () => {
  const dir = project({ 'loop.cjs': LOOP });
  const run = runHookedOk(['loop.cjs'], { cwd: dir, env: { DETDRIFT_STACKS_AT: '0:mathRandom' } });
  assert.equal(run.stdout, 'true\n');
  assert.match(
    run.stderr,
    /^detdrift: ERR_DETDRIFT_STACKS_AT: DETDRIFT_STACKS_AT has "0:mathRandom"; expected LINEAGE:API:ORDINAL/,
  );
  assert.equal(run.traces.size, 0);
});
