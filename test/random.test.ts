import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, project, runHooked, siteOf, type HookedRun, type Trace } from './helpers.js';

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
  assert.deepEqual(events.map((event) => event.value), JSON.parse(run.stdout));
  assert.deepEqual(
    events.map((event) => [siteOf(trace, event)?.file, siteOf(trace, event)?.line, siteOf(trace, event)?.fn]),
    [['app.mjs', 2, null], ['lib.cjs', 2, 'draw'], ['app.mjs', 4, null]],
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

function expectedOrdinals(first: number, every: number, calls: number): number[] {
  const ordinals: number[] = [];
  for (let n = 0; n < calls; n++) if (n < first || n % every === 0) ordinals.push(n);
  return ordinals;
}

test('a hot loop gets sites for its first 64 calls, then one call in 256, the same calls in every run', () => {
  const dir = project({ 'loop.cjs': LOOP });
  const runs = [runHooked(['loop.cjs'], { cwd: dir }), runHooked(['loop.cjs'], { cwd: dir })];
  const [one, two] = runs.map(traceOf) as [Trace, Trace];
  assert.equal(eventsOf(one, 'Math.random').length, 10000, 'every call is an event, sampled or not');
  assert.deepEqual(one.header.sites, { first: 64, every: 256 });
  const ordinals = sampled(one);
  assert.deepEqual(ordinals, expectedOrdinals(64, 256, 10000));
  assert.deepEqual(sampled(two), ordinals, 'two runs sample the same call ordinals');
  // One line, one site: the sampled calls share an interned stack.
  const sites = new Set(eventsOf(one, 'Math.random').filter((event) => event.site !== 0).map((event) => event.site));
  assert.equal(sites.size, 1);
  assert.deepEqual([...sites].map((site) => one.sites.get(site)?.frames[0]?.line), [2]);
});

test('DETDRIFT_SITES=first/every changes which calls get sites', () => {
  const dir = project({ 'loop.cjs': LOOP });
  const trace = traceOf(runHooked(['loop.cjs'], { cwd: dir, env: { DETDRIFT_SITES: '5/1000' } }));
  assert.deepEqual(trace.header.sites, { first: 5, every: 1000 });
  assert.deepEqual(sampled(trace), expectedOrdinals(5, 1000, 10000));
});
