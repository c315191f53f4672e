import type { Frame } from '../tracer/format.js';
import type { LockfileChange } from './lockfile/index.js';
import type { ProcessComparison } from './compare.js';
import type { LoadedTrace } from './load.js';
import { positionKey, type RanCalls, type ScanDiff, type ScanSite } from './scan/index.js';

/** What a bump changed, and which of its new clock and entropy sites a run reached. */
export interface Attribution {
  /**
   * the change the cause's stack runs through, nearest the call first; with no call to blame (a
   * divergence no intercepted source explains), the first changed package whose new code head ran;
   * null when none
   */
  readonly cause: LockfileChange | null;
  readonly changes: readonly LockfileChange[];
  /**
   * sites each changed package's new version added (by the static scan; all of a package head adds), and
   * whether head reached them
   */
  readonly added: readonly AddedSite[];
}

export interface AddedSite extends ScanSite {
  /** `name@version` of the new version */
  readonly package: string;
  /** the head run made a call at this exact place */
  readonly reached: boolean;
  /** every build the site is in is one for browsers, which Node does not load (browserBuild) */
  readonly browserOnly: boolean;
}

/**
 * A file of a build for browsers, by the names bundlers and packages give them (`dist/browser/`,
 * `index.browser.js`, `umd/`, `iife`): Node loads none of them, so a site there cannot change a
 * run on Node.
 */
export function browserBuild(file: string): boolean {
  return /(^|[/._-])(browser|umd|iife)([/._-]|$)/i.test(file);
}

/**
 * Attributes a cause to a bump: the nearest frame of its stack (the call itself first, then its
 * callers) inside a package whose version changed, matched by name and by the version that run
 * had (`to` in head, `from` in base). A call in a package the bump did not change, reached through
 * one it did, is attributed to the changed one: the bump is what made that call happen.
 */
export function attribute(
  stack: readonly Frame[] | null,
  changes: readonly LockfileChange[],
  scans: ReadonlyMap<LockfileChange, ScanDiff>,
  head: LoadedTrace | null,
  /** stacks a replay of head took for calls head's run did not sample (cli/shared/stacks.ts): head reached them too */
  alsoReached: ReadonlyArray<readonly Frame[]> = [],
): Attribution {
  const cause = stack ? nearestChange(stack, changes) : head ? firstChangeRun(head, changes) : null;
  const reached = head ? reachedSites(head, alsoReached) : new Set<string>();
  const added: AddedSite[] = [];
  for (const [change, diff] of scans) {
    const pkg = `${change.name}@${change.to}`;
    // A site is listed once for all its builds: the one head ran, else the first Node loads, else the first.
    for (const { copies, ...first } of diff.added) {
      const builds = [first, ...copies];
      const ran = builds.find((site) => reached.has(`${pkg}/${site.file}:${site.line}:${site.column}`));
      const forNode = builds.find((site) => !browserBuild(site.file));
      added.push({
        ...(ran ?? forNode ?? first),
        package: pkg,
        reached: ran !== undefined,
        browserOnly: !ran && !forNode,
      });
    }
  }
  return { cause, changes, added };
}

function nearestChange(stack: readonly Frame[], changes: readonly LockfileChange[]): LockfileChange | null {
  for (const frame of stack) {
    if (frame.package === null) continue;
    const at = frame.package.lastIndexOf('@');
    const name = frame.package.slice(0, at);
    const version = frame.package.slice(at + 1);
    const change = changes.find(
      (candidate) => candidate.name === name && (candidate.to === version || candidate.from === version),
    );
    if (change) return change;
  }
  return null;
}

/** The first changed package, at its new version, on a stack head took (in the order head first took them). */
function firstChangeRun(head: LoadedTrace, changes: readonly LockfileChange[]): LockfileChange | null {
  const ran = changes.filter((change) => change.to !== null);
  for (const site of head.sites.values()) {
    const change = nearestChange(site.frames, ran);
    if (change) return change;
  }
  return null;
}

/** `name@version/file:line:column` of every call site the run took a stack at. */
function reachedSites(trace: LoadedTrace, also: ReadonlyArray<readonly Frame[]>): Set<string> {
  const sites = new Set<string>();
  for (const frames of [...[...trace.sites.values()].map((def) => def.frames), ...also]) {
    const frame = frames[0];
    if (frame?.package) sites.add(`${frame.file}:${frame.line}:${frame.column}`);
  }
  return sites;
}

// Events whose stack is not where the program called the API: a timer firing, a property read, a constructor.
const NOT_CALLS = new Set(['fire', 'get', 'construct']);

/** The calls each run made inside packages, by `name@version`, as the runtime resolved them. */
export interface RunCalls {
  readonly a: ReadonlyMap<string, RanCalls>;
  readonly b: ReadonlyMap<string, RanCalls>;
}

/**
 * What the runs of a comparison called inside packages: what the scanner is told, so that a call
 * through an alias it cannot follow is still a site (`RanCalls`). `taken`: the blamed call's
 * stack where a replay took it (cli/shared/stacks.ts), the run not having sampled it.
 */
export function callsOfRuns(focus: ProcessComparison | null, taken: readonly Frame[] | null): RunCalls {
  const cause = focus?.cause;
  const blamed = (side: 'a' | 'b') =>
    taken && cause?.row && !cause.process && cause.side === side ? [[cause.row.event.api, taken] as const] : [];
  return { a: callsMade(focus?.a ?? null, blamed('a')), b: callsMade(focus?.b ?? null, blamed('b')) };
}

function callsMade(
  trace: LoadedTrace | null,
  also: ReadonlyArray<readonly [api: string, frames: readonly Frame[]]>,
): Map<string, RanCalls> {
  const made = new Map<string, Map<string, Map<string, string>>>();
  const calls = trace
    ? trace.calls.kinds
        .filter((kind) => !NOT_CALLS.has(kind.spec.form))
        .map((kind) => [kind.spec.api, trace.sites.get(kind.site)?.frames ?? []] as const)
    : [];
  for (const [api, frames] of [...calls, ...also]) {
    const frame = frames[0];
    if (!frame?.package || !frame.file.startsWith(`${frame.package}/`)) continue;
    const files = made.get(frame.package) ?? made.set(frame.package, new Map()).get(frame.package)!;
    const file = frame.file.slice(frame.package.length + 1);
    const positions = files.get(file) ?? files.set(file, new Map()).get(file)!;
    positions.set(positionKey(frame), api);
  }
  return made;
}
