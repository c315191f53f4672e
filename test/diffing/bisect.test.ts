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

test("a right guess (the comparison's cause) is confirmed in eight runs whatever the total; a wrong one still finds the boundary", async () => {
  const boundary = 377_001;
  const reproduces = async (pinned: number) => pinned >= boundary;
  const plain = await bisect(1_000_000, reproduces, { maxRuns: 48 });
  const right = await bisect(1_000_000, reproduces, { maxRuns: 48, guess: boundary });
  assert.deepEqual([plain.status, plain.pinned], ['confirmed', boundary]);
  assert.deepEqual([right.status, right.pinned, right.runs], ['confirmed', boundary, 8]);
  const last = await bisect(1_000_000, async (pinned) => pinned === 1_000_000, { maxRuns: 48, guess: 1_000_000 });
  assert.deepEqual([last.status, last.pinned, last.runs], ['confirmed', 1_000_000, 8], 'the last value: asked afresh');
  for (const guess of [1, boundary - 1, boundary + 1, 999_999, 1_000_000]) {
    const wrong = await bisect(1_000_000, reproduces, { maxRuns: 48, guess });
    assert.deepEqual([wrong.status, wrong.pinned], ['confirmed', boundary], `guess ${guess}`);
    assert.ok(wrong.runs <= plain.runs + 4, `guess ${guess}: ${wrong.runs} runs, ${plain.runs} without it`);
  }
});

/** How many of 2000 searches over 200 coin-toss verdicts are confirmed, searching from `guess`. */
async function coinConfirmed(guess: number): Promise<number> {
  let confirmed = 0;
  for (let seed = 1; seed <= 2000; seed++) {
    const toss = coin(seed);
    const result = await bisect(200, async () => toss(), { maxRuns: 48, guess });
    if (result.status === 'confirmed') confirmed++;
  }
  return confirmed;
}

test('a coin toss is almost never confirmed at a guess either', async () => {
  const confirmed = await coinConfirmed(120);
  assert.ok(confirmed / 2000 < 1 / 64, `${confirmed} of 2000 coin-toss searches were confirmed`);
});

test('a coin toss is almost never confirmed at a guess of the last value either', async () => {
  // The comparison's cause is often the last value run A recorded: then "pinning the guess
  // reproduces" is the verdict "pinning everything reproduces", which must not count twice.
  const confirmed = await coinConfirmed(200);
  assert.ok(confirmed / 2000 < 1 / 64, `${confirmed} of 2000 coin-toss searches were confirmed`);
});
