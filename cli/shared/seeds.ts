/**
 * Seed lists and shards: `--seeds 1..1000`, `--seeds 1,5,9` or `1..10,42` name the seeds in order,
 * and `--shard 3/8` takes this run's share of them, as Jest and Playwright shard their tests. A
 * report lists each seed with what checking it found (report.seeds).
 */
import { causeIn } from '../../diffing/cause.js';
import type { Comparison } from '../../diffing/compare.js';
import type { BumpVerdict, SeedView, ShardView } from '../../report/types.js';

/** A seed as `--seed` takes it: decimal or 0x hexadecimal, kept as typed (control mode digests the text). */
export const SEED_TEXT = /^(?:\d+|0x[0-9a-f]+)$/i;

/** A range of seeds, both ends included: decimal, so that what it expands to reads as it was written. */
const RANGE = /^(\d+)\.\.(\d+)$/;

/**
 * The most seeds one list may name: thousands is the scale, and a slip like `1..10000000000` is refused
 * before it is expanded.
 */
export const MAX_SEEDS = 100_000;

export type Expanded =
  | { readonly seeds: readonly string[]; readonly problem: null }
  | { readonly seeds: null; readonly problem: string };

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
    if (range && !(Number.isSafeInteger(from) && Number.isSafeInteger(to)))
      return failed(`${item}: the ends of a range are integers up to 2^53-1`);
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

/** `--shard I/N`: the I-th of N shares of the seed list, from 1. */
export interface Shard {
  readonly index: number;
  readonly total: number;
}

/** `I/N` with 1 <= I <= N, or null. */
export function parseShard(text: string): Shard | null {
  const match = /^(\d{1,6})\/(\d{1,6})$/.exec(text.trim());
  if (!match) return null;
  const [index, total] = [Number(match[1]), Number(match[2])];
  return index >= 1 && index <= total ? { index, total } : null;
}

/**
 * The shard's share of `list`: a contiguous block, the first `length % total` blocks one longer, as
 * Playwright splits its tests (Jest's default sequencer also takes contiguous blocks, of a sorted list).
 * Blocks keep a shard's seeds a range to read, and the shards, in order, the list's own order: the
 * first diverging seed of the first shard that diverges is the list's first diverging seed.
 */
export function shareOf<T>(list: readonly T[], shard: Shard): T[] {
  const { from, length } = shareBounds(list.length, shard);
  return list.slice(from, from + length);
}

/** Where the shard's share of a list of `length` items starts, and how many it holds: no list is made. */
export function shareBounds(length: number, { index, total }: Shard): { from: number; length: number } {
  const size = Math.floor(length / total);
  const longer = length - size * total;
  return { from: size * (index - 1) + Math.min(longer, index - 1), length: size + (index - 1 < longer ? 1 : 0) };
}

/** `shard 2/4: 250 of 1000 seeds, 251 to 500`: what a shard's log says it checks. */
export function describeShare(shard: Shard & { readonly seeds: number }, share: readonly (string | null)[]): string {
  const which = share.length === 1 ? `seed ${share[0]}` : `${share[0]} to ${share.at(-1)}`;
  return `shard ${shard.index}/${shard.total}: ${share.length} of ${shard.seeds} seeds, ${which}`;
}

/** A checked seed's entry; for a bump, its verdict decides whether the seed diverged. */
export function seedView(seed: string | null, comparison: Comparison, bump: BumpVerdict | null = null): SeedView {
  const diverged = bump === null ? comparison.verdict === 'diverge' : bump !== 'unchanged';
  return {
    seed,
    verdict: diverged ? 'diverge' : 'agree',
    cause: diverged && comparison.diverging ? briefCause(comparison) : null,
    bump,
  };
}

/** A report's seed list: the seeds checked, then the rest, not checked; null for one seed without a shard. */
export function seedList(
  seeds: readonly (string | null)[],
  checked: readonly SeedView[],
  shard: ShardView | null,
): SeedView[] | null {
  if (seeds.length === 1 && shard === null) return null;
  const rest = seeds
    .slice(checked.length)
    .map((seed): SeedView => ({ seed, verdict: 'not-checked', cause: null, bump: null }));
  return [...checked, ...rest];
}

/** The heuristic cause of a diverging comparison in a few words: its kind, API and call site. */
export function briefCause({ diverging, interner }: Comparison): string {
  const cause = diverging!.cause;
  const where = causeIn(diverging!);
  const trace = cause?.side === 'b' ? where.b : where.a;
  if (!cause?.row || !trace)
    return cause?.kind === 'outside' ? 'not explained by an intercepted source' : 'the runs diverge';
  const kind = trace.calls.kind(cause.row.index);
  const frame = trace.sites.get(kind.site)?.frames[0];
  const what = cause.kind === 'ordering' ? 'an ordering difference at' : '';
  const crossed = where === diverging ? '' : `in process ${where.lineage}`;
  return [
    what,
    interner.names[kind.api],
    frame ? `at ${frame.file}:${frame.line}` : 'at an unsampled call site',
    crossed,
  ]
    .filter(Boolean)
    .join(' ');
}
