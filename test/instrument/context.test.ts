import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, project, runHookedOk, type Trace } from '../helpers.js';

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
