/**
 * A report's seed list (report.seeds: a seed list, a shard's share, or every shard's after
 * `detdrift merge`) as the text forms show it: the counts, each diverging seed with its cause, the
 * others as runs of consecutive seeds. Thousands of seeds stay a few lines.
 */
import type { SeedView } from './types.js';

/** The most diverging seeds listed one by one; the rest are counted. */
export const LISTED_SEEDS = 20;

/** The most runs of seeds (`1..250`) one line names; the rest are counted. */
const LISTED_RUNS = 30;

export interface SeedsInWords {
  /** `8 seeds in 4 shards: 2 diverge, 4 agree, 2 not checked` */
  readonly counts: string;
  /** the first LISTED_SEEDS that diverged */
  readonly diverged: readonly SeedView[];
  /** `and 3 more diverge` when there were more; else null */
  readonly moreDiverged: string | null;
  /** the seeds that agree, as runs: `1..2, 5..6`; null when none */
  readonly agreed: string | null;
  /** the seeds not checked, as runs; null when none */
  readonly notChecked: string | null;
  /** why they were not checked */
  readonly whyNotChecked: string;
}

export function describeSeeds(seeds: readonly SeedView[]): SeedsInWords {
  const by = (verdict: SeedView['verdict']) => seeds.filter((entry) => entry.verdict === verdict);
  const [diverged, agreed, notChecked] = [by('diverge'), by('agree'), by('not-checked')];
  const shards = new Set(seeds.map((entry) => entry.shard ?? null));
  const within = shards.size > 1 || !shards.has(null) ? ` in ${shards.size} shard${shards.size === 1 ? '' : 's'}` : '';
  const counted = [
    `${diverged.length} diverge`,
    `${agreed.length} agree`,
    ...(notChecked.length > 0 ? [`${notChecked.length} not checked`] : []),
  ];
  return {
    counts: `${seeds.length} seed${seeds.length === 1 ? '' : 's'}${within}: ${counted.join(', ')}`,
    diverged: diverged.slice(0, LISTED_SEEDS),
    moreDiverged: diverged.length > LISTED_SEEDS ? `and ${diverged.length - LISTED_SEEDS} more diverge` : null,
    agreed: agreed.length > 0 ? runsOf(agreed) : null,
    notChecked: notChecked.length > 0 ? runsOf(notChecked) : null,
    whyNotChecked: `a seed before them${within ? ' in their shard' : ''} diverged, and the check stopped there`,
  };
}

/** `Math.random at app.js:5 (shard 2)`: a diverging seed's line after its seed. */
export function describeSeedCause(entry: SeedView): string {
  return `${entry.cause ?? 'the runs diverge'}${entry.shard ? ` (shard ${entry.shard})` : ''}`;
}

/** Seeds in list order, consecutive decimal ones joined: `1..3, 7, 0x2a`. */
function runsOf(seeds: readonly SeedView[]): string {
  const runs: string[] = [];
  let start = 0;
  for (let at = 1; at <= seeds.length; at++) {
    if (at < seeds.length && follows(seeds[at - 1]!.seed, seeds[at]!.seed)) continue;
    const [first, last] = [seeds[start]!.seed ?? 'none', seeds[at - 1]!.seed ?? 'none'];
    runs.push(first === last ? first : `${first}..${last}`);
    start = at;
  }
  const more = runs.length - LISTED_RUNS;
  return more > 0 ? `${runs.slice(0, LISTED_RUNS).join(', ')} and ${more} more` : runs.join(', ');
}

/** `next` is the decimal seed after `seed`, both written as ranges write them. */
function follows(seed: string | null, next: string | null): boolean {
  const decimal = (text: string | null) => (text !== null && /^(?:0|[1-9]\d{0,15})$/.test(text) ? Number(text) : NaN);
  return decimal(next) === decimal(seed) + 1;
}
