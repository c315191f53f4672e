import assert from 'node:assert/strict';
import { test } from 'node:test';
import { captureFrames, type CallSite } from '../../instrument/real.js';
import { SiteIds } from '../../instrument/sites.js';

/** Fresh call sites on every call, as a sampled call gets them: V8 never hands out the same objects. */
function stackHere(): CallSite[] {
  return captureFrames(32, stackHere)!;
}
const fromA = () => stackHere();
const fromB = () => stackHere();
const nested = () => fromA();
/** Each stack taken twice from one line, so that only the callee's frames differ between kinds. */
const twice = (take: () => CallSite[]) => [0, 1].map(() => take());

test('a stack seen again gets its id back; any other frame, file or depth is another stack', () => {
  const ids = new SiteIds();
  const [a, aAgain] = twice(fromA);
  const [b] = twice(fromB);
  const [deeper, deeperAgain] = twice(nested);
  assert.equal(ids.get(a!), 0, 'unknown at first');
  ids.set(a!, 7);
  assert.equal(ids.get(aAgain!), 7, 'the same stack, captured again');
  assert.equal(ids.get(b!), 0, 'another line at the top');
  assert.equal(ids.get(deeper!), 0, 'the same top frame, one caller more');
  assert.equal(ids.get(a!.slice(1)), 0, 'a suffix of a known stack is not known');
  ids.set(deeper!, 8);
  assert.deepEqual([ids.get(aAgain!), ids.get(deeperAgain!)], [7, 8]);
});
