import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSameAsPlain, eventsOf, project, runHooked, runHookedOk, siteOf } from '../helpers.js';

/** Draws and clock reads inside contexts made every way a program (or a runner) makes them, one per line. */
const CONTEXTS = `import vm from 'node:vm';
import { createContext, runInContext } from 'node:vm';
const made = createContext();
runInContext('Math.random()', made, { filename: 'made.js' });
runInContext('Date.now()', made, { filename: 'made.js' });
vm.runInNewContext('new Date()', { given: 1 }, 'fresh.js');
new vm.Script('Date()', { filename: 'script.js' }).runInNewContext();
runInContext('Math.random()', vm.createContext(vm.createContext({})), { filename: 'twice.js' });
`;

test('every vm context records its Math.random and Date as the main realm does, with the line inside it', () => {
  const dir = project({ 'app.mjs': CONTEXTS });
  const run = runHookedOk(['app.mjs'], { cwd: dir });
  const trace = run.traces.get('0')!;
  const sites = (api: string) => eventsOf(trace, api).map((event) => siteOf(trace, event)?.file);
  assert.deepEqual(sites('Math.random'), ['made.js', 'twice.js']);
  assert.deepEqual(sites('Date.now'), ['made.js']);
  assert.deepEqual(sites('new Date'), ['fresh.js']);
  assert.deepEqual(sites('Date()'), ['script.js']);
});

/**
 * What a program can see of a context's built-ins and of the object it contextified: printed as
 * JSON, compared between a plain run and a hooked one. (`Math.random` and `Date.now` are accessors
 * under the hook, in every realm alike: a known difference of their own.)
 */
const REFLECT = `import vm from 'node:vm';
const sandbox = { seed: 1 };
const context = vm.createContext(sandbox);
const seen = vm.runInContext(\`({
  date: String(Date), now: String(Date.now), random: Function.prototype.toString.call(Math.random),
  toString: String(Function.prototype.toString), name: Date.name, length: Date.length,
  proto: Object.getPrototypeOf(Date) === Function.prototype && Object.getPrototypeOf(Math.random) === Function.prototype,
  constructor: Date.prototype.constructor === Date, instance: new Date() instanceof Date,
  subclass: (() => { class Day extends Date {} return new Day(0) instanceof Day && new Day(0).getTime() === 0; })(),
  called: typeof Date(), parse: Date.parse('2020-01-01T00:00:00Z'), utc: Date.UTC(2020, 0),
  keys: Object.getOwnPropertyNames(Date).sort(), dateDescriptor: Object.getOwnPropertyDescriptor(globalThis, 'Date'),
})\`, context);
seen.sandboxKeys = Object.getOwnPropertyNames(sandbox);
seen.fresh = vm.runInNewContext('typeof Date.now() + typeof Math.random()', sandbox);
console.log(JSON.stringify(seen));
`;

test('inside a context the patched built-ins print, reflect and construct as the unpatched ones, and the sandbox gains nothing', () => {
  const dir = project({ 'app.mjs': REFLECT });
  const run = assertSameAsPlain(['app.mjs'], { cwd: dir }, 0);
  const trace = run.traces.get('0')!;
  assert.equal(eventsOf(trace, 'new Date').length, 1);
  assert.equal(eventsOf(trace, 'Math.random').length, 1);
});

/** A context's draws in control mode: the seed's stream, the same in every run and the main realm's own. */
const CONTROLLED = `import vm from 'node:vm';
const inside = vm.runInNewContext('[Math.random(), Date.now(), new Date().getTime()]');
console.log(JSON.stringify([Math.random(), ...inside]));
`;

test('control mode feeds a context the seeded stream and the virtual clock, the same in every run', () => {
  const dir = project({ 'app.mjs': CONTROLLED });
  const env = { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '7' };
  const first = runHooked(['app.mjs'], { cwd: dir, env });
  const second = runHooked(['app.mjs'], { cwd: dir, env });
  assert.equal(first.code, 0, first.stderr);
  assert.equal(first.stdout, second.stdout);
  const [outer, inner, now, constructed] = JSON.parse(first.stdout) as number[];
  assert.notEqual(outer, inner, 'one stream: the context draws the next value, not the first again');
  assert.equal(now! + 1, constructed, 'one virtual clock, 1 ms a read');
  assert.equal(new Date(now!).toISOString(), '2024-01-01T00:00:00.001Z');
});

test('a context whose calls come after thousands of the main realm still gets the stacks of its first calls', () => {
  const dir = project({
    'app.mjs': `import vm from 'node:vm';
for (let i = 0; i < 5000; i++) Math.random();
vm.runInNewContext('Math.random()', {}, 'test.js');
`,
  });
  const run = runHookedOk(['app.mjs'], { cwd: dir });
  const trace = run.traces.get('0')!;
  const draws = eventsOf(trace, 'Math.random');
  assert.equal(draws.length, 5001);
  assert.equal(siteOf(trace, draws[5000]!)?.file, 'test.js');
});
