/**
 * The sites one version of a package added and removed relative to another. Line numbers move
 * whenever anything above a site changes, so sites are matched on what they are, in tiers from
 * strict to loose; each tier only sees what the stricter ones left unmatched:
 *
 *   exact     same file, API, enclosing function and code around the site (only the line moved)
 *   function  same file, API and named enclosing function: the code around it was edited
 *   context   same file, API and code: the function around it was renamed or the code moved
 *   masked    same file and API, same code once local names are masked: a minifier renamed them
 *   file      same API, function and code in another file: the file was moved or renamed
 *   rebuilt   same API and masked code in another file: a bundler rebuilt its chunks, renaming
 *             the files (content hashes) and the minified names alike
 *
 * Within a tier, a site pairs with the candidate of the same key whose surrounding code is most
 * like its own (the first in source order on a tie). What no tier matched is added (in B) or
 * removed (in A).
 */
import { compareSites } from './source.js';
import type { MatchKind, ScanDiff, ScanResult, ScanSite } from './types.js';

type Tier = readonly [kind: MatchKind | 'exact', key: (site: ScanSite) => string | null];

const TIERS: readonly Tier[] = [
  ['exact', (site) => key(site.file, site.api, site.fn, site.context)],
  ['function', (site) => (named(site.fn) ? key(site.file, site.api, site.fn) : null)],
  ['context', (site) => key(site.file, site.api, site.context)],
  ['masked', (site) => key(site.file, site.api, mask(site.context))],
  ['file', (site) => key(site.api, site.fn, site.context)],
  ['rebuilt', (site) => key(site.api, mask(site.context))],
];

export function diffScans(a: Pick<ScanResult, 'sites'>, b: Pick<ScanResult, 'sites'>): ScanDiff {
  let restA = [...a.sites].sort(compareSites);
  let restB = [...b.sites].sort(compareSites);
  const changed: { a: ScanSite; b: ScanSite; match: MatchKind }[] = [];
  let unchanged = 0;
  for (const [kind, keyOf] of TIERS) {
    const queues = new Map<string, ScanSite[]>();
    for (const site of restB) {
      const k = keyOf(site);
      if (k === null) continue;
      const queue = queues.get(k);
      if (queue) queue.push(site);
      else queues.set(k, [site]);
    }
    const matched = new Set<ScanSite>();
    restA = restA.filter((site) => {
      const k = keyOf(site);
      const queue = k === null ? undefined : queues.get(k);
      // Exact candidates are all alike: the first in source order.
      const partner = queue === undefined || queue.length === 0 ? undefined : queue.splice(kind === 'exact' ? 0 : closest(site, queue), 1)[0]!;
      if (!partner) return true;
      matched.add(partner);
      if (kind === 'exact') unchanged++;
      else changed.push({ a: site, b: partner, match: kind });
      return false;
    });
    restB = restB.filter((site) => !matched.has(site));
  }
  changed.sort((x, y) => compareSites(x.b, y.b));
  // Copies: what the caller does with the diff never reaches the scans it came from.
  const copy = (site: ScanSite): ScanSite => ({ ...site });
  return {
    added: restB.map(copy),
    removed: restA.map(copy),
    changed: changed.map(({ a: x, b: y, match }) => ({ a: copy(x), b: copy(y), match })),
    unchanged,
  };
}

/** The candidate sharing the most code right before and right after the site (context is `before⟨site⟩after`). */
function closest(site: ScanSite, candidates: readonly ScanSite[]): number {
  if (candidates.length === 1) return 0;
  const [before, after] = split(site.context);
  let best = 0;
  let bestScore = -1;
  candidates.forEach((candidate, index) => {
    const [otherBefore, otherAfter] = split(candidate.context);
    let score = 0;
    while (score < before.length && score < otherBefore.length && before[before.length - 1 - score] === otherBefore[otherBefore.length - 1 - score]) score++;
    for (let i = 0; i < after.length && i < otherAfter.length && after[i] === otherAfter[i]; i++) score++;
    if (score > bestScore) [best, bestScore] = [index, score];
  });
  return best;
}

function split(context: string): [before: string, after: string] {
  const mark = context.indexOf('⟨');
  return mark === -1 ? ['', context] : [context.slice(0, mark), context.slice(mark + 1)];
}

function key(...parts: readonly (string | null)[]): string {
  return JSON.stringify(parts);
}

/** A function worth matching on: not the top level, not a chain of anonymous callbacks. */
function named(fn: string | null): boolean {
  return fn !== null && !fn.endsWith('<anonymous>');
}

/** Every name not after a `.` becomes `_`: `vare=t.randomBytes(16)` and `varn=r.randomBytes(16)` agree. */
export function mask(context: string): string {
  return context.replace(/(?<![.\w$])[A-Za-z_$][\w$]*/g, '_');
}
