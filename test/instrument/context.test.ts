import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promiseHooksApart } from '../../instrument/context.js';
import { eventsOf, project, runHookedOk, runPlain, type Trace } from '../helpers.js';

/**
 * Two timers whose callbacks each start more work (an immediate, a promise, a nested timer) and
 * draw in it; `first` says which timer fires first. Math.random is drawn in a's work, Date.now in
 * b's, so each event tells whose work it is.
 */
const APP = `
const first = process.argv[2];
const work = (draw) => {
  setImmediate(() => draw());
  Promise.resolve().then(() => draw());
  setTimeout(() => setImmediate(() => draw()), 0);
};
setTimeout(() => work(() => Math.random()), first === 'a' ? 1 : 30);
setTimeout(() => work(() => Date.now()), first === 'a' ? 30 : 1);
`;

/** The context keys of an API's events, in the order they were recorded. */
function keysOf(trace: Trace, api: string): string[] {
  return eventsOf(trace, api).map((event) => trace.contexts.get(event.ctx)?.key ?? 'root');
}

test('a context is named by the context that created it and its ordinal there, whatever ran first', () => {
  const dir = project({ 'app.js': APP });
  const keys = (first: string) => {
    const run = runHookedOk(['app.js', first], { cwd: dir });
    const trace = run.traces.get('0')!;
    return { a: keysOf(trace, 'Math.random'), b: keysOf(trace, 'Date.now') };
  };
  const aFirst = keys('a');
  const bFirst = keys('b');
  assert.equal(aFirst.a.length, 3);
  assert.equal(aFirst.b.length, 3);
  // each piece of work runs in a context of its own, none the root's
  assert.equal(new Set([...aFirst.a, ...aFirst.b]).size, 6);
  assert.ok(!aFirst.a.includes('root'));
  // the same work gets the same names when the other timer's work ran before it
  assert.deepEqual(new Set(bFirst.a), new Set(aFirst.a));
  assert.deepEqual(new Set(bFirst.b), new Set(aFirst.b));
});

/**
 * Async work of every kind a program mixes: awaits, then-chains, Promise.all, an async generator,
 * thenables, microtasks, next ticks, timers and immediates inside promise callbacks and promises
 * inside theirs, an AsyncResource's scope inside a promise callback, and promises in `vm`
 * contexts (a test runner's), one made before the promise hooks take over, with a draw in each.
 * It prints the async id its promise callbacks run under, which the hook must leave as Node gives it.
 */
const MIXED = `
const { AsyncResource, executionAsyncId } = require('node:async_hooks');
const vm = require('node:vm');
const draw = () => Math.random();
const early = vm.createContext({ draw }); // made before the promise hooks take over, used after
async function* ticks() { for (let i = 0; i < 3; i++) { await null; draw(); yield i; } }
async function main() {
  const resource = new AsyncResource('job');
  await Promise.all([1, 2, 3].map(async (i) => { await null; draw(); return i; }));
  await Promise.resolve().then(() => { draw(); resource.runInAsyncScope(() => draw()); queueMicrotask(draw); });
  await { then(resolve) { draw(); resolve(); } };
  for await (const _ of ticks()) draw();
  await new Promise((resolve) => setTimeout(() => { draw(); Promise.resolve().then(draw).then(resolve); }, 1));
  await new Promise((resolve) => setImmediate(() => process.nextTick(() => { draw(); resolve(); })));
  await vm.runInNewContext('Promise.resolve().then(draw).then(() => Promise.all([1, 2].map(async () => draw())))', { draw });
  await vm.runInContext('(async () => { await null; draw(); })()', early);
  await null;
  console.log(executionAsyncId());
}
main();
`;

test("V8's promise hooks and an async hook that tracks promises name every context alike, and a run that moves from one to the other too", {
  skip: !promiseHooksApart() && "this Node's async hooks always track promises",
}, () => {
  const dir = project({ 'app.js': MIXED });
  const run = (after: number) => {
    const hooked = runHookedOk(['app.js'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: `promise-hooks-after:${after}` } });
    const trace = hooked.traces.get('0')!;
    return { keys: keysOf(trace, 'Math.random'), stdout: hooked.stdout };
  };
  const promiseHooks = run(0);
  const asyncHook = run(1_000_000);
  assert.equal(promiseHooks.keys.length, 20);
  assert.ok(new Set(promiseHooks.keys).size >= 15, 'the draws run in contexts of their own');
  assert.deepEqual(asyncHook.keys, promiseHooks.keys);
  // the promise hooks take over at the first draw after the Nth promise: before the program's
  // first, or between two of its draws (Node's loader makes promises of its own first)
  const moved = [5, 20, 40, 60, 80].map(run);
  moved.forEach(({ keys }, index) => assert.deepEqual(keys, promiseHooks.keys, `run ${index}`));
  // an async hook that tracks promises gives their callbacks async ids of their own; V8's hooks do
  // not, and once they took over Node tracks promises no more
  const plain = runPlain(['app.js'], { cwd: dir });
  assert.equal(promiseHooks.stdout, plain.stdout);
  assert.notEqual(asyncHook.stdout, plain.stdout);
  assert.equal(moved[0]!.stdout, plain.stdout);
});

test("a program's own async hook, which makes Node track promises, does not have them named twice", {
  skip: !promiseHooksApart() && "this Node's async hooks always track promises",
}, () => {
  const dir = project({ 'app.js': `require('node:async_hooks').createHook({ init() {} }).enable();\n${MIXED}` });
  const keys = (after: number) =>
    keysOf(
      runHookedOk(['app.js'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: `promise-hooks-after:${after}` } }).traces.get(
        '0',
      )!,
      'Math.random',
    );
  const asyncHook = keys(1_000_000);
  assert.equal(asyncHook.length, 20);
  assert.deepEqual(keys(0), asyncHook);
  assert.deepEqual(keys(20), asyncHook);
});
