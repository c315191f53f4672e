import type { Frame, SiteDef } from '../tracer/format.js';
import { packageName } from './keys.js';
import type { LoadedTrace, RowKind, Rows } from './load.js';
import { isRunners, type RunnerProfile, type RunnerSetting } from './runners.js';

/** What the project asked to leave out of the comparison (its config's `ignore`, and `runners`). */
export interface IgnoreRules {
  /**
   * `path` (a file, or a directory ending in `/`) or `path:line`: project-relative, or `package/path` in a
   * dependency
   */
  readonly sites: readonly string[];
  /** package names, without a version */
  readonly packages: readonly string[];
  /** which test runners' own calls and outputs to leave out (diffing/runners.ts); absent: `auto` */
  readonly runners?: RunnerSetting;
}

/** Stacks a replay took for calls their run did not sample (cli/shared/stacks.ts), by call index. */
export type TakenStacks = ReadonlyMap<number, readonly Frame[]>;

/**
 * The calls of a trace that take part in alignment: all but those whose call site (the first
 * frame kept) the rules name, and those an active runner made (diffing/runners.ts). A call whose
 * stack was not taken (after the first calls of an API, only a sample is, DETDRIFT_SITES) cannot
 * be told apart, and stays in, unless a replay took its stack since (`taken`). Rows keep their
 * index, so a report still counts calls as the trace does.
 */
export function keptCalls(
  trace: LoadedTrace,
  rules: IgnoreRules | undefined,
  runners: readonly RunnerProfile[] = [],
  taken?: TakenStacks,
): Rows {
  const rows = kept(trace, trace.calls, rules, runners);
  if (taken === undefined || taken.size === 0) return rows;
  return rows.where((position) => {
    const frames = taken.get(rows.index(position));
    return frames === undefined || !leftOut({ frames, skipped: 0 }, rules, runners);
  });
}

/**
 * The outputs compared: all but an active runner's own (its report lines, timings, cache files).
 * The `ignore` rules name calls, not outputs, and leave outputs in.
 */
export function keptOutputs(trace: LoadedTrace, runners: readonly RunnerProfile[]): Rows {
  return kept(trace, trace.outputs, undefined, runners);
}

function kept(trace: LoadedTrace, rows: Rows, rules: IgnoreRules | undefined, runners: readonly RunnerProfile[]): Rows {
  if (!leavesOut(rules, runners)) return rows;
  const keep = (kind: RowKind) => kind.site === 0 || !leftOut(trace.sites.get(kind.site), rules, runners);
  const kept = rows.filter(keep);
  if (runners.length === 0) return kept;
  const runnersOwn = runnerContexts(trace, runners);
  return kept.where((position) => kept.kind(position).site !== 0 || !runnersOwn.has(kept.ctx(position)));
}

function named(rules: IgnoreRules | undefined): rules is IgnoreRules {
  return rules !== undefined && (rules.sites.length > 0 || rules.packages.length > 0);
}

/** Whether the rules or the runners leave anything out at all. */
export function leavesOut(rules: IgnoreRules | undefined, runners: readonly RunnerProfile[]): boolean {
  return named(rules) || runners.length > 0;
}

/** Whether a call with this stack is left out: the rules name its site, or an active runner made it. */
export function leftOut(
  site: Pick<SiteDef, 'frames' | 'skipped'> | undefined,
  rules: IgnoreRules | undefined,
  runners: readonly RunnerProfile[],
): boolean {
  const frame = site?.frames[0];
  const ignored =
    frame !== undefined &&
    named(rules) &&
    (rules.packages.includes(packageName(frame) ?? '') || rules.sites.some((rule) => matches(rule, frame)));
  return ignored || isRunners(site, runners);
}

/**
 * The async contexts in which every call and output whose stack was taken is the runner's: its
 * calls whose stacks were not taken are taken to be its own too (a runner's retry loop, the 20
 * draws of one id after the first). The first call of each API in a new context gets its stack
 * (instrument/schedule.ts), so a test body's context always shows a frame of the project.
 */
function runnerContexts(trace: LoadedTrace, runners: readonly RunnerProfile[]): Set<number> {
  const known = runnerContextsOf.get(trace);
  if (known?.runners === runners) return known.contexts;
  const contexts = findRunnerContexts(trace, runners);
  runnerContextsOf.set(trace, { runners, contexts });
  return contexts;
}

/** Each trace's runner contexts, found once for its calls and its outputs alike. */
const runnerContextsOf = new WeakMap<LoadedTrace, { runners: readonly RunnerProfile[]; contexts: Set<number> }>();

function findRunnerContexts(trace: LoadedTrace, runners: readonly RunnerProfile[]): Set<number> {
  const verdicts = new Map<number, boolean>();
  for (const rows of [trace.calls, trace.outputs]) {
    for (let position = 0; position < rows.length; position++) {
      const site = rows.kind(position).site;
      if (site === 0) continue;
      const ctx = rows.ctx(position);
      verdicts.set(ctx, (verdicts.get(ctx) ?? true) && isRunners(trace.sites.get(site), runners));
    }
  }
  return new Set([...verdicts].filter(([, runners]) => runners).map(([ctx]) => ctx));
}

function matches(rule: string, frame: Frame): boolean {
  const name = packageName(frame);
  const file = name === null ? frame.file : name + frame.file.slice(frame.package!.length);
  if (rule.endsWith('/')) return file.startsWith(rule);
  const at = rule.lastIndexOf(':');
  if (at > 0 && /^\d+$/.test(rule.slice(at + 1)))
    return file === rule.slice(0, at) && frame.line === Number(rule.slice(at + 1));
  return file === rule;
}
