/**
 * Confirms a cause by replay: a run that gets the first k recorded values of run A (and fresh ones
 * after) either reproduces A's outputs or does not. The smallest k that reproduces A makes the
 * k-th recorded value the one that decides: the replay-confirmed cause.
 */

export type Confirmation =
  /** pinning the first `pinned` values reproduces A, pinning one fewer does not */
  | 'confirmed'
  /** pinning every recorded value still does not reproduce A: the cause is outside the hook */
  | 'outside'
  /** a run with no value pinned already reproduces A: the divergence did not happen again */
  | 'not-reproduced'
  /** verdicts flipped on repeated runs, or the run budget ran out before the boundary was found */
  | 'unstable';

export interface BisectResult {
  readonly status: Confirmation;
  /** the smallest number of pinned values that reproduced A (confirmed, unstable: the best found) */
  readonly pinned: number | null;
  /** of how many replayable values */
  readonly total: number;
  readonly runs: number;
}

export interface BisectOptions {
  /** the most re-runs to spend; a search over n values needs about log2(n) + 8 */
  readonly maxRuns: number;
  /**
   * Where the boundary is likely to be: the values to pin through the cause the comparison chose.
   * Asked right after both ends, one fewer first: a right guess is confirmed in eight runs whatever
   * the total (six at 1); a wrong one costs one or two runs when the boundary is below it, up to
   * five when it is above, and narrows the search that follows.
   */
  readonly guess?: number | null;
  /** told after every run: how many so far, the k just tried, and about how many the search takes in all */
  readonly onRun?: (runs: number, pinned: number, reproduced: boolean, about: number) => void;
}

/**
 * Binary search for the smallest k with `reproduces(k)`, assuming (and then checking) that pinning
 * more values never un-reproduces A. Every verdict the result rests on is asked twice and must
 * agree with itself: both ends first (pinning everything reproduces A, pinning nothing does not),
 * then the boundary found (k reproduces, k − 1 does not). A run whose reproduction does not depend
 * on the pinned values alone (I/O completion order, a worker race) gives verdicts that flip, and
 * is `unstable`, not `confirmed`: with verdicts that are a coin's toss, one search in 64 at most
 * passes these checks (each of four verdicts asked twice; test/diffing/bisect.test.ts measures it).
 */
export async function bisect(
  total: number,
  reproduces: (pinned: number) => Promise<boolean>,
  options: BisectOptions,
): Promise<BisectResult> {
  let runs = 0;
  let low = 0; // does not reproduce
  let high = total; // reproduces
  // The runs left: the halvings of the interval, and the boundary's two verdicts asked twice.
  const about = () => Math.min(options.maxRuns + 4, runs + Math.ceil(Math.log2(Math.max(1, high - low))) + 4);
  const run = async (pinned: number): Promise<boolean> => {
    runs++;
    const reproduced = await reproduces(pinned);
    options.onRun?.(runs, pinned, reproduced, about());
    return reproduced;
  };
  /** Verdicts asked twice that agreed: the ends and the guess are not asked again at the boundary. */
  const settled = new Map<number, boolean>();
  /** The verdict for `pinned`, asked twice: null when the two differ. */
  const twice = async (pinned: number): Promise<boolean | null> => {
    const known = settled.get(pinned);
    if (known !== undefined) return known;
    const first = await run(pinned);
    if ((await run(pinned)) !== first) return null;
    settled.set(pinned, first);
    return first;
  };
  const unstable = (pinned: number | null): BisectResult => ({ status: 'unstable', pinned, total, runs });

  const all = await twice(total);
  if (all === null) return unstable(null);
  if (!all) return { status: 'outside', pinned: null, total, runs };
  const none = total === 0 ? true : await twice(0);
  if (none === null) return unstable(null);
  if (none) return { status: 'not-reproduced', pinned: null, total, runs };

  const guess = options.guess;
  if (guess !== undefined && guess !== null && guess >= 1 && guess <= total) {
    // One fewer first, asked once (0 is settled already): when that reproduces, the guess is wrong
    // and the search goes on below it.
    const known = settled.get(guess - 1);
    if (known === undefined && (await run(guess - 1))) high = guess - 1;
    else {
      if (known === undefined) {
        if (await run(guess - 1)) return unstable(null);
        settled.set(guess - 1, false);
      }
      // The guess's own verdict, asked afresh when it is the total's: a confirmation rests on four
      // verdicts, and "pinning all reproduces" must not count as two of them.
      if (guess === total) settled.delete(total);
      const at = await twice(guess);
      if (at === null || (!at && guess === total)) return unstable(null);
      if (at) return { status: 'confirmed', pinned: guess, total, runs };
      low = guess;
    }
  }
  while (high - low > 1) {
    if (runs >= options.maxRuns) return unstable(high);
    const middle = low + Math.floor((high - low) / 2);
    if (await run(middle)) high = middle;
    else low = middle;
  }
  // Every verdict the result rests on is asked twice: the boundary found by the search was asked once.
  const stillHigh = (await twice(high)) === true;
  const stillLow = (await twice(low)) === false;
  return stillHigh && stillLow ? { status: 'confirmed', pinned: high, total, runs } : unstable(high);
}
