/**
 * The sites one version of a package added and removed relative to another. Line numbers move
 * whenever anything above a site changes, and files move whenever the build does, so sites are
 * matched on what they are, in tiers from strict to loose; each tier only sees what the stricter
 * ones left unmatched:
 *
 *   exact     same file, API, enclosing function and code around the site (only the line moved)
 *   function  same file, API and named enclosing function: the code around it was edited
 *   context   same file, API and code: the function around it was renamed or the code moved
 *   masked    same file and API, same code once local names are masked: a minifier renamed them
 *   file      same API, function and code in another file: the file was moved or renamed
 *   rebuilt   same API and masked code in another file: a bundler rebuilt its chunks, renaming
 *             the files (content hashes) and the minified names alike
 *   moved     same API in a function of the same name (the innermost named one, up to case and
 *             leading underscores), its code edited, in any file: a rewrite that moved its files
 *
 * Within a tier, a site pairs with the candidate of the same key whose surrounding code is most
 * like its own (the first in source order on a tie). Then copies: a package that ships one code
 * as several builds (CommonJS and ESM, node and browser) has each site once per build, and a
 * version may ship more builds or fewer. A site left over that has the API and the masked code,
 * or the API and the named function, of a matched site in another file is a copy of it, at most
 * one per file (`copy`). What is still left is added (in B) or removed (in A), each site listed
 * once with its copies in the version's other builds.
 */
import { compareSites } from './source.js';
import type { ListedSite, MatchKind, ScanDiff, ScanResult, ScanSite } from './types.js';

type Key = (site: ScanSite) => string | null;
type Pair = { a: ScanSite; b: ScanSite; match: MatchKind };

const TIERS: readonly (readonly [kind: MatchKind | 'exact', key: Key])[] = [
  ['exact', (site) => key(site.file, site.api, site.fn, site.context)],
  ['function', (site) => (named(site.fn) ? key(site.file, site.api, site.fn) : null)],
  ['context', (site) => key(site.file, site.api, site.context)],
  ['masked', (site) => key(site.file, site.api, mask(site.context))],
  ['file', (site) => key(site.api, site.fn, site.context)],
  ['rebuilt', (site) => key(site.api, mask(site.context))],
  [
    'moved',
    (site) => {
      const fn = innermost(site.fn);
      return fn === null ? null : key(site.api, fn);
    },
  ],
];

// What makes two sites in different files copies of one: a build of the same code.
const COPY_KEYS: readonly Key[] = [
  (site) => key(site.api, mask(site.context)),
  (site) => (named(site.fn) ? key(site.api, site.fn) : null),
];

export function diffScans(a: Pick<ScanResult, 'sites'>, b: Pick<ScanResult, 'sites'>): ScanDiff {
  let restA = [...a.sites].sort(compareSites);
  let restB = [...b.sites].sort(compareSites);
  const pairs: { a: ScanSite; b: ScanSite }[] = []; // exact ones included
  const changed: Pair[] = [];
  let unchanged = 0;
  for (const [kind, keyOf] of TIERS) {
    const queues = index(restB, [keyOf]);
    const matched = new Set<ScanSite>();
    restA = restA.filter((site) => {
      const k = keyOf(site);
      const queue = k === null ? undefined : queues.get(k);
      // Exact candidates are all alike: the first in source order.
      const partner =
        queue === undefined || queue.length === 0
          ? undefined
          : queue.splice(kind === 'exact' ? 0 : closest(site, queue), 1)[0]!;
      if (!partner) return true;
      matched.add(partner);
      pairs.push({ a: site, b: partner });
      if (kind === 'exact') unchanged++;
      else changed.push({ a: site, b: partner, match: kind });
      return false;
    });
    restB = restB.filter((site) => !matched.has(site));
  }
  const copiesA = copies(
    restA,
    pairs.map(({ a: of, b: partner }) => ({ of, partner })),
  );
  const copiesB = copies(
    restB,
    pairs.map(({ a: partner, b: of }) => ({ of, partner })),
  );
  changed.push(
    ...copiesA.found.map(({ site, partner }) => ({ a: site, b: partner, match: 'copy' as const })),
    ...copiesB.found.map(({ site, partner }) => ({ a: partner, b: site, match: 'copy' as const })),
  );
  changed.sort((x, y) => compareSites(x.b, y.b) || compareSites(x.a, y.a));
  // Copies: what the caller does with the diff never reaches the scans it came from.
  const copy = (site: ScanSite): ScanSite => ({ ...site });
  const listed = ({ site, copies }: { site: ScanSite; copies: ScanSite[] }): ListedSite => ({
    ...site,
    copies: copies.map(copy),
  });
  return {
    added: buildsOf(copiesB.rest).map(listed),
    removed: buildsOf(copiesA.rest).map(listed),
    changed: changed.map(({ a: x, b: y, match }) => ({ a: copy(x), b: copy(y), match })),
    unchanged,
  };
}

/**
 * The sites of `rest` that are copies of a matched site (`of`) in another file, each paired with
 * that site's partner in the other version: a matched site has at most one copy in each file,
 * the most alike there.
 */
function copies(rest: readonly ScanSite[], matched: readonly { of: ScanSite; partner: ScanSite }[]) {
  const candidates = index(rest, COPY_KEYS);
  const found = new Map<ScanSite, ScanSite>();
  for (const { of, partner } of matched) {
    const open = [...new Set(COPY_KEYS.flatMap((keyOf) => candidates.get(keyOf(of) ?? '') ?? []))].filter(
      (site) => site.file !== of.file && !found.has(site),
    );
    for (const file of new Set(open.map((site) => site.file))) {
      const inFile = open.filter((site) => site.file === file);
      found.set(inFile[closest(of, inFile)]!, partner);
    }
  }
  return {
    found: [...found].map(([site, partner]) => ({ site, partner })),
    rest: rest.filter((site) => !found.has(site)),
  };
}

/**
 * Unmatched sites grouped by the code they are a build of: each site in source order not yet in a
 * group starts one, and takes from every other file its most alike copy.
 */
function buildsOf(rest: readonly ScanSite[]): { site: ScanSite; copies: ScanSite[] }[] {
  const candidates = index(rest, COPY_KEYS);
  const grouped = new Set<ScanSite>();
  const groups: { site: ScanSite; copies: ScanSite[] }[] = [];
  for (const site of rest) {
    if (grouped.has(site)) continue;
    grouped.add(site);
    const open = [...new Set(COPY_KEYS.flatMap((keyOf) => candidates.get(keyOf(site) ?? '') ?? []))].filter(
      (other) => other.file !== site.file && !grouped.has(other),
    );
    const copies = [...new Set(open.map((other) => other.file))].map((file) => {
      const inFile = open.filter((other) => other.file === file);
      return inFile[closest(site, inFile)]!;
    });
    for (const other of copies) grouped.add(other);
    groups.push({ site, copies });
  }
  return groups;
}

/** Sites by each of their keys, in source order. */
function index(sites: readonly ScanSite[], keys: readonly Key[]): Map<string, ScanSite[]> {
  const byKey = new Map<string, ScanSite[]>();
  for (const site of sites) {
    for (const keyOf of keys) {
      const k = keyOf(site);
      if (k === null) continue;
      const list = byKey.get(k);
      if (list) list.push(site);
      else byKey.set(k, [site]);
    }
  }
  return byKey;
}

/**
 * The candidate in the most alike functions (enclosing names shared from the innermost out, up to
 * case and leading underscores), then sharing the most code right before and right after the site
 * (context is `before⟨site⟩after`).
 */
function closest(site: ScanSite, candidates: readonly ScanSite[]): number {
  if (candidates.length === 1) return 0;
  const [before, after] = split(site.context);
  const names = functionNames(site.fn);
  let best = 0;
  let bestScore: readonly number[] = [-1];
  candidates.forEach((candidate, index) => {
    const [otherBefore, otherAfter] = split(candidate.context);
    const otherNames = functionNames(candidate.fn);
    let shared = 0;
    while (
      shared < names.length &&
      shared < otherNames.length &&
      names[names.length - 1 - shared] === otherNames[otherNames.length - 1 - shared]
    )
      shared++;
    let code = 0;
    while (
      code < before.length &&
      code < otherBefore.length &&
      before[before.length - 1 - code] === otherBefore[otherBefore.length - 1 - code]
    )
      code++;
    for (let i = 0; i < after.length && i < otherAfter.length && after[i] === otherAfter[i]; i++) code++;
    if (shared > bestScore[0]! || (shared === bestScore[0] && code > bestScore[1]!))
      [best, bestScore] = [index, [shared, code]];
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

/**
 * The enclosing functions from the innermost named one: `detectprng > <anonymous>` for
 * `detectPRNG > <anonymous>`, `ulid` for `factory > _ulid`; null when none has a name.
 */
function innermost(fn: string | null): string | null {
  const names = functionNames(fn);
  let at = names.length - 1;
  while (at >= 0 && names[at] === '<anonymous>') at--;
  return at === -1 ? null : names.slice(at).join(' > ');
}

/** The enclosing functions' names, outermost first, each up to case and leading underscores (what a rewrite keeps). */
function functionNames(fn: string | null): string[] {
  return fn === null ? [] : fn.split(' > ').map((name) => name.replace(/^[_$]+/, '').toLowerCase());
}

/** Every name not after a `.` becomes `_`: `vare=t.randomBytes(16)` and `varn=r.randomBytes(16)` agree. */
export function mask(context: string): string {
  return context.replace(/(?<![.\w$])[A-Za-z_$][\w$]*/g, '_');
}
