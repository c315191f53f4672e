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
  /** the most re-runs to spend; a search over n values needs about log2(n) + 4 */
  readonly maxRuns: number;
  /** told after every run: how many so far, the k just tried */
  readonly onRun?: (runs: number, pinned: number, reproduced: boolean) => void;
}

/**
 * Binary search for the smallest k with `reproduces(k)`, assuming (and then checking) that pinning
 * more values never un-reproduces A. The two ends are tried first, and the boundary is tried again
 * at the end: a verdict that flips there is asked a third time, and the majority stands.
 */
export async function bisect(total: number, reproduces: (pinned: number) => Promise<boolean>, options: BisectOptions): Promise<BisectResult> {
  let runs = 0;
  const run = async (pinned: number): Promise<boolean> => {
    runs++;
    const reproduced = await reproduces(pinned);
    options.onRun?.(runs, pinned, reproduced);
    return reproduced;
  };
  const settle = async (pinned: number, first: boolean): Promise<boolean | null> => {
    const second = await run(pinned);
    if (second === first) return first;
    return runs < options.maxRuns ? run(pinned) : null;
  };

  if (!(await run(total)) && (await settle(total, false)) === false) return { status: 'outside', pinned: null, total, runs };
  if (total === 0 || ((await run(0)) && (await settle(0, true)) === true)) return { status: 'not-reproduced', pinned: null, total, runs };

  let low = 0; // does not reproduce
  let high = total; // reproduces
  while (high - low > 1) {
    if (runs >= options.maxRuns) return { status: 'unstable', pinned: high, total, runs };
    const middle = low + Math.floor((high - low) / 2);
    if (await run(middle)) high = middle;
    else low = middle;
  }
  const stillHigh = await settle(high, true);
  const stillLow = low === 0 ? false : await settle(low, false);
  const stable = stillHigh === true && stillLow === false;
  return { status: stable ? 'confirmed' : 'unstable', pinned: high, total, runs };
}
