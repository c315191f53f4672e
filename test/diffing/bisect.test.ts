import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bisect } from '../../diffing/bisect.js';

/** A seeded generator (mulberry32): the same verdicts in every run of the test. */
function coin(seed: number): () => boolean {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32 < 0.5;
  };
}

test('a run that reproduces by the pinned values alone is confirmed at its boundary', async () => {
  const result = await bisect(1000, async (pinned) => pinned >= 377, { maxRuns: 48 });
  assert.deepEqual([result.status, result.pinned], ['confirmed', 377]);
});

test('a run whose reproduction is a coin toss (completion order, a race) is almost never confirmed', async () => {
  const searches = 2000;
  let confirmed = 0;
  for (let seed = 1; seed <= searches; seed++) {
    const toss = coin(seed);
    const result = await bisect(200, async () => toss(), { maxRuns: 48 });
    if (result.status === 'confirmed') confirmed++;
  }
  // four verdicts, each asked twice, must agree with themselves: 1/64 at most, about 1/256 mostly
  assert.ok(confirmed / searches < 1 / 64, `${confirmed} of ${searches} coin-toss searches were confirmed`);
});
