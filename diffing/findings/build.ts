import type { Row, RowKind, LoadedTrace } from '../load.js';
import type { Comparison, ProcessComparison } from '../compare.js';
import type { BisectResult } from '../bisect.js';
import { confirmedCause, type Cause } from '../cause.js';
import type { Divergence } from '../localize.js';
import type { Attribution } from '../attribute.js';
import type { LockfileChange } from '../lockfile/index.js';
import { OriginalFrames } from '../source-maps/original.js';
import { askFor, callKey, unaskable, type StackOutcome } from '../stacks.js';
import type { Frame } from '../../tracer/format.js';
import { shownHeld } from '../../tracer/held.js';
import { encodeStacksAt, VARS } from '../../tracer/settings.js';
import { runNames } from '../../report/text.js';
import { sourceLines, sourceOf } from './source.js';
import { buildTimeline } from './timeline.js';
import {
  REPORT_SCHEMA,
  type BumpSectionView,
  type BumpVerdict,
  type BumpView,
  type CauseView,
  type CountView,
  type DivergenceView,
  type EventView,
  type FrameView,
  type OrderingView,
  type Report,
  type AttemptView,
  type FailureView,
  type PerturbationView,
  type RunNames,
  type RunView,
  type SeedView,
  type ShardView,
  type SourceView,
  type StackNoteView,
  type ValueView,
} from '../../report/types.js';

export interface BuildOptions {
  /** the project root on this disk, for code frames */
  readonly root: string;
  /** replay bisection's result, which overrides the heuristic cause when it decides */
  readonly confirmation?: BisectResult | null;
  /** the one-line command that replays run A */
  readonly replay?: string | null;
  /** `detdrift bump`: the lockfile changes, their scanned sites, and the verdict over the runs */
  readonly bump?: { readonly verdict: BumpVerdict; readonly seed: string | null; readonly attribution: Attribution } | null;
  /** `detdrift check --perturb`: which perturbation run A had, and every one tried (cli/perturb.ts) */
  readonly perturbation?: PerturbationView | null;
  /** stacks a replay re-run took, or failed to take, for calls their runs did not sample (cli/stacks.ts) */
  readonly stacks?: readonly StackOutcome[] | null;
  /** `check --runs N` (N > 2): each later run compared with the first */
  readonly attempts?: readonly AttemptView[] | null;
  /** `check`: the command failed in at least one run */
  readonly failure?: FailureView | null;
  /** `check`, `bump`: the seeds checked in turn, and the shard of the seed list they are */
  readonly seeds?: readonly SeedView[] | null;
  readonly shard?: ShardView | null;
  /** what the report calls its runs when neither run A and run B nor a bump's base and head fit (the demo's are base and head) */
  readonly runNames?: RunNames | null;
}

/** Stacks taken by a re-run, by `side:index` of the call in the diverging process. */
type Taken = ReadonlyMap<string, readonly Frame[]>;

/** A trace's frames at their original source positions (diffing/source-maps/), one reader of maps per trace. */
type Originals = (trace: LoadedTrace) => OriginalFrames;

const NEARBY = 8;

const MAX_SITES = 20;

/** Builds the one report object that every renderer draws. The same comparison gives the same report. */
export function buildReport(comparison: Comparison, options: BuildOptions): Report {
  const focus = comparison.diverging ?? comparison.processes[0] ?? null;
  const names = comparison.interner.names;
  const outcomes = (options.stacks ?? []).filter((outcome) => outcome.ask.lineage === focus?.lineage);
  const taken: Taken = new Map(outcomes.flatMap((outcome) => (outcome.frames ? [[callKey(outcome.ask.side, outcome.ask.index), outcome.frames] as const] : [])));
  const originals = originalsIn(options.root);
  const view = (row: Row | null, side: 'a' | 'b'): EventView | null => {
    const trace = side === 'a' ? focus?.a : focus?.b;
    return row && trace ? eventView(row, trace, names, originals, taken.get(callKey(side, row.index))) : null;
  };
  const divergence = (found: Divergence | null): DivergenceView | null =>
    found && focus
      ? { process: focus.lineage, index: { a: found.indexA, b: found.indexB }, reason: found.reason, a: view(found.a, 'a'), b: view(found.b, 'b') }
      : null;
  // Runs that agree may have run in another order in any process: the first that did says how.
  const ordered = comparison.diverging ? focus : (comparison.processes.find((process) => process.alignment?.ordering) ?? null);
  const ordering = ordered?.alignment?.ordering;
  const decided = focus ? confirmedCause(focus, options.confirmation) : null;
  return {
    schema: REPORT_SCHEMA,
    verdict: comparison.verdict,
    runs: { a: runView(focus?.a ?? null), b: runView(focus?.b ?? null) },
    runNames: options.runNames ?? null,
    firstDivergence: divergence(focus?.first ?? null),
    outputDivergence: divergence(focus?.output ?? null),
    cause: focus && decided ? withBump(causeView(focus, decided, names, options, originals, outcomes), options.bump?.attribution.cause ?? null) : null,
    ordering: ordering ? orderingView(ordered!, names) : null,
    confirmation: options.confirmation
      ? { status: options.confirmation.status, pinned: options.confirmation.pinned, total: options.confirmation.total, runs: options.confirmation.runs }
      : null,
    nearby: decided?.cause?.kind === 'outside' ? nearbyEvents(focus, names, originals, taken) : [],
    replay: options.replay ?? null,
    bump: options.bump ? bumpSection(options.bump, new OriginalFrames(options.root)) : null,
    perturbation: options.perturbation ?? null,
    attempts: options.attempts ?? null,
    failure: options.failure ?? null,
    seeds: options.seeds ?? null,
    shard: options.shard ?? null,
    timeline: focus ? buildTimeline(focus, (row, side) => view(row, side)!) : null,
    traceProblems: comparison.problems.map(({ lineage, side, file, code, from, to, message }) => ({
      process: lineage,
      run: side,
      trace: file,
      code,
      bytes: { from, to },
      message,
    })),
    differences: {
      processes: comparison.processes.map((process) => ({ process: process.lineage, verdict: process.verdict, inA: process.a !== null, inB: process.b !== null })),
      perApi: counts(focus, (kind) => names[kind.api]!, Infinity),
      perSite: counts(focus, (kind, trace) => siteLabel(kind, trace, originals), MAX_SITES),
      uncontrolledValues: focus ? uncontrolledValues(focus) : 0,
    },
  };
}

/** One reader of source maps per trace, for the project at `root`. */
function originalsIn(root: string): Originals {
  const made = new Map<LoadedTrace, OriginalFrames>();
  return (trace) => {
    let originals = made.get(trace);
    if (!originals) made.set(trace, (originals = new OriginalFrames(root, trace.sources)));
    return originals;
  };
}

/** Run A's I/O, timer and fs calls nearest the first output divergence, nearest first (the earlier of two as near). */
function nearbyEvents(process: ProcessComparison | null, names: readonly string[], originals: Originals, taken: Taken): EventView[] {
  if (!process?.a || !process.first) return [];
  const trace = process.a;
  const at = process.first.indexA;
  const nearby: EventView[] = [];
  const take = (index: number) => {
    const family = index >= 0 && index < trace.calls.length ? trace.calls.kind(index).spec.family : null;
    if (nearby.length < NEARBY && (family === 'fs' || family === 'timers')) nearby.push(eventView(trace.calls.at(index)!, trace, names, originals, taken.get(`a:${index}`)));
  };
  for (let distance = 0; nearby.length < NEARBY && (at - distance >= 0 || at + distance < trace.calls.length); distance++) {
    take(at - distance);
    if (distance > 0) take(at + distance);
  }
  return nearby;
}

/** Where a process's two runs make the same calls in another order, and how many calls moved context. */
function orderingView({ lineage, alignment }: ProcessComparison, names: readonly string[]): OrderingView {
  const { index, a, b } = alignment!.ordering!;
  return { index, contexts: [names[a.ctx]!, names[b.ctx]!], process: lineage, moved: alignment!.moved };
}

/** Matched calls whose values differ and that nothing controls, up to where the alignment stopped. */
function uncontrolledValues({ alignment, a, b }: ProcessComparison): number {
  if (!alignment || !a || !b) return 0;
  let count = 0;
  for (let indexA = 0; indexA < alignment.pairs.end; indexA++) {
    const indexB = alignment.pairs.partnerOfA(indexA);
    if (indexB >= 0 && a.calls.kind(indexA).control === 0 && !a.calls.sameValue(indexA, b.calls, indexB)) count++;
  }
  return count;
}

function causeView(
  process: ProcessComparison,
  { cause, confirmed }: { cause: Cause | null; confirmed: boolean },
  names: readonly string[],
  options: BuildOptions,
  originals: Originals,
  outcomes: readonly StackOutcome[],
): CauseView | null {
  if (!cause) return null;
  const trace = cause.side === 'a' ? process.a! : process.b!;
  const outcome = cause.row ? outcomes.find(({ ask }) => ask.side === cause.side && ask.index === cause.row!.index) : undefined;
  const event = cause.row ? eventView(cause.row, trace, names, originals, outcome?.frames ?? undefined) : null;
  const partner = cause.row && cause.kind === 'call' ? partnerOf(process, cause.row, cause.side) : undefined;
  const firstParty = event?.stack.find((frame) => frame.package === null) ?? null;
  const ordering = process.alignment?.ordering;
  return {
    kind: cause.kind,
    api: cause.kind === 'call' ? event?.api ?? null : null,
    form: cause.kind === 'call' ? event?.form ?? null : null,
    site: event?.site ?? null,
    package: event?.site?.package ?? null,
    firstPartySite: firstParty,
    stack: event?.stack ?? [],
    run: cause.side,
    value: partner === undefined || !event ? null : cause.side === 'a' ? { a: event.value, b: partner } : { a: partner, b: event.value },
    contexts: cause.kind === 'ordering' && ordering ? [names[ordering.a.ctx]!, names[ordering.b.ctx]!] : null,
    confidence: confirmed ? 'replay-confirmed' : 'heuristic',
    rule: cause.rule,
    source: event?.site ? codeFrame(event.site, options.root, originals(trace)) : null,
    bump: null,
    stackNote: cause.row && trace.calls.kind(cause.row.index).site === 0 ? stackNote(trace, process.lineage, cause.side, runNames(options)[cause.side], cause.row, outcome) : null,
  };
}

/** What became of the stack of a blamed call its run did not sample. */
/** `run`: the name the report shows the call's run by (`run A`, `head`). */
function stackNote(trace: LoadedTrace, lineage: string, side: 'a' | 'b', run: string, row: Row, outcome: StackOutcome | undefined): StackNoteView {
  const ask = outcome?.ask ?? askFor(trace, lineage, side, row);
  const call = `${run} did not sample the stack of ${ask.api} call #${ask.ordinal} of process ${lineage} (stacks are taken for the first calls of each API, then a sample)`;
  const note = (status: StackNoteView['status'], detail: string): StackNoteView => ({ status, process: lineage, ordinal: ask.ordinal, stacksAt: encodeStacksAt(ask.at), detail });
  if (outcome?.frames) return note('replayed', `${call}; a replay of the run took it`);
  if (outcome) return note('not-reproduced', `${call}; a replay of the run to take it failed, so no site is shown: ${outcome.reason}`);
  const why = unaskable(ask);
  if (why !== null) return note('not-sampled', `${call}; no re-run can take it: ${why}`);
  const how = `replay ${run} with ${VARS.stacksAt}=${encodeStacksAt(ask.at)} set (\`detdrift replay --out DIR TRACE -- CMD\`, then \`detdrift show DIR\`), or let \`detdrift check\` or \`detdrift bump\` re-run the command, which takes it`;
  return note('not-sampled', `${call}; to take it, ${how}`);
}

/** The lines around a frame: its file on this disk, else the copy its source map holds. */
function codeFrame(site: FrameView, root: string, originals: OriginalFrames): SourceView | null {
  const onDisk = sourceOf(site, root);
  const text = onDisk ? null : originals.sourceText(site);
  return onDisk ?? (text === null ? null : sourceLines(site, text));
}

function withBump(cause: CauseView | null, change: LockfileChange | null): CauseView | null {
  return cause && change ? { ...cause, bump: bumpView(change) } : cause;
}

function bumpView(change: LockfileChange): BumpView {
  return { name: change.name, from: change.from, to: change.to, kind: change.kind, path: change.path };
}

/** The bump's section; the sites the new versions added at their original positions where the packages ship maps. */
function bumpSection({ verdict, seed, attribution }: NonNullable<BuildOptions['bump']>, originals: OriginalFrames): BumpSectionView {
  const original = (pkg: string, file: string, line: number, column: number, fn: string | null) => {
    const shown = originals.frame({ file: `${pkg}/${file}`, line, column, fn, package: pkg });
    return { file: shown.file.startsWith(`${pkg}/`) ? shown.file.slice(pkg.length + 1) : shown.file, line: shown.line, column: shown.column };
  };
  return {
    verdict,
    seed,
    changes: attribution.changes.map((change) => ({ ...bumpView(change), direct: change.direct, path: change.path })),
    addedSites: attribution.added.map(({ api, package: pkg, file, line, column, fn, reached }) => ({ api, package: pkg, ...original(pkg, file, line, column, fn), fn, reached })),
  };
}

/** The value the other run saw at the blamed call, when the call was made in both. */
function partnerOf(process: ProcessComparison, row: Row, side: 'a' | 'b'): ValueView | undefined {
  const pairs = process.alignment?.pairs;
  const partner = side === 'a' ? pairs?.partnerOfA(row.index) : pairs?.partnerOfB(row.index);
  const other = side === 'a' ? process.b : process.a;
  if (partner === undefined || partner < 0 || !other) return undefined;
  return valueView(other.calls.at(partner)!.event);
}

/** `taken`: the stack a re-run took for this call, used when its run did not sample it. */
function eventView(row: Row, trace: LoadedTrace, names: readonly string[], originals: Originals, taken?: readonly Frame[]): EventView {
  const { event } = row;
  const frames = originals(trace).frames((event.site === 0 ? taken : trace.sites.get(event.site)?.frames) ?? []);
  return {
    index: row.index,
    seq: event.seq,
    api: event.api,
    form: event.form,
    value: valueView(event),
    site: frames[0] ?? null,
    stack: frames,
    context: names[row.ctx]!,
    controlledBy: event.control === 1 ? 'detdrift' : event.control === 2 ? 'program' : null,
  };
}

/** A call's value as reports show it: a crypto value held for replay as its digest (tracer/held.ts). */
function valueView(event: Row['event']): ValueView {
  const value = shownHeld(event).value;
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number') return JSON.stringify(value);
  return value as ValueView;
}

function runView(trace: LoadedTrace | null): RunView | null {
  if (!trace) return null;
  const { header, ending } = trace;
  return {
    trace: trace.file,
    node: header.node,
    platform: header.platform,
    arch: header.arch,
    mode: header.mode,
    seed: header.seed,
    command: header.command,
    lockfile: header.lockfile ? `${header.lockfile.file}:${header.lockfile.sha256.slice(0, 12)}` : null,
    calls: trace.calls.length,
    outputs: trace.outputs.length,
    complete: ending.complete,
    exitCode: ending.exitCode,
  };
}

function counts(process: ProcessComparison | null, label: (kind: RowKind, trace: LoadedTrace) => string, limit: number): CountView[] {
  if (!process) return [];
  const table = new Map<string, { a: number; b: number }>();
  const add = (trace: LoadedTrace | null, side: 'a' | 'b') => {
    for (const [kind, count] of trace?.calls.kindCounts() ?? []) {
      const key = label(kind, trace!);
      const entry = table.get(key) ?? { a: 0, b: 0 };
      entry[side] += count;
      table.set(key, entry);
    }
  };
  add(process.a, 'a');
  add(process.b, 'b');
  return [...table]
    .map(([key, { a, b }]) => ({ key, a, b }))
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .slice(0, limit);
}

function siteLabel(kind: RowKind, trace: LoadedTrace, originals: Originals): string {
  const generated = trace.sites.get(kind.site)?.frames[0];
  const frame = generated && originals(trace).frame(generated);
  return frame ? `${kind.spec.api} ${frame.file}:${frame.line}:${frame.column}` : `${kind.spec.api} (stack not taken)`;
}
