/**
 * Seed lists and shards: `--seeds 1..1000`, `--seeds 1,5,9` or `1..10,42` name the seeds in order,
 * and `--shard 3/8` takes this run's share of them, as Jest and Playwright shard their tests.
 */

/** A seed as `--seed` takes it: decimal or 0x hexadecimal, kept as typed (control mode digests the text). */
export const SEED_TEXT = /^(?:\d+|0x[0-9a-f]+)$/i;

/** A range of seeds, both ends included: decimal, so that what it expands to reads as it was written. */
const RANGE = /^(\d+)\.\.(\d+)$/;

/** The most seeds one list may name: thousands is the scale, and a slip like `1..10000000000` is refused before it is expanded. */
export const MAX_SEEDS = 100_000;

export type Expanded = { readonly seeds: readonly string[]; readonly problem: null } | { readonly seeds: null; readonly problem: string };

/**
 * The seeds that `items` (each a seed or a range `A..B`) name, in their order, or what is wrong:
 * an item that is neither, a range that runs backwards, a seed named twice (as typed: `7` and `007`
 * are two seeds, as they are to control mode), more than MAX_SEEDS.
 */
export function expandSeeds(items: readonly string[]): Expanded {
  const seeds: string[] = [];
  const seen = new Set<string>();
  for (const item of items.map((text) => text.trim())) {
    const range = RANGE.exec(item);
    const from = range ? Number(range[1]) : 0;
    const to = range ? Number(range[2]) : 0;
    if (range && !(Number.isSafeInteger(from) && Number.isSafeInteger(to))) return failed(`${item}: the ends of a range are integers up to 2^53-1`);
    if (range && from > to) return failed(`${item} runs backwards; write ${to}..${from}`);
    if (!range && !SEED_TEXT.test(item)) {
      return failed(`${JSON.stringify(item)} is neither a seed (42, 0x2a) nor a range of decimal seeds (1..1000)`);
    }
    if (seeds.length + (range ? to - from + 1 : 1) > MAX_SEEDS) return failed(`more than ${MAX_SEEDS} seeds`);
    for (const seed of range ? rangeOf(from, to) : [item]) {
      if (seen.has(seed)) return failed(`seed ${seed} is named twice`);
      seen.add(seed);
      seeds.push(seed);
    }
  }
  return { seeds, problem: null };
}

function* rangeOf(from: number, to: number): Generator<string> {
  for (let seed = from; seed <= to; seed++) yield String(seed);
}

function failed(problem: string): Expanded {
  return { seeds: null, problem };
}
