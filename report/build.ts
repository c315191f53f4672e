import type { Row, RowKind, LoadedTrace } from '../diffing/load.js';
import type { Comparison, ProcessComparison } from '../diffing/compare.js';
import type { BisectResult } from '../diffing/bisect.js';
import type { Cause } from '../diffing/cause.js';
import type { Divergence } from '../diffing/localize.js';
import type { Attribution } from '../diffing/attribute.js';
import type { LockfileChange } from '../diffing/lockfile/index.js';
import { REPLAYABLE_FAMILIES } from '../tracer/apis.js';
import { bytesToHex } from '../tracer/digest.js';
import { sourceOf } from './source.js';
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
  type PerturbationView,
  type Report,
  type RunView,
  type ValueView,
} from './types.js';

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
}

const NEARBY = 8;

const MAX_SITES = 20;

/** Builds the one report object that every renderer draws. The same comparison gives the same report. */
export function buildReport(comparison: Comparison, options: BuildOptions): Report {
  const focus = comparison.diverging ?? comparison.processes[0] ?? null;
  const names = comparison.interner.names;
  const view = (row: Row | null, trace: LoadedTrace | null): EventView | null =>
    row && trace ? eventView(row, trace, names) : null;
  const divergence = (found: Divergence | null): DivergenceView | null =>
    found && focus
      ? { process: focus.lineage, index: { a: found.indexA, b: found.indexB }, reason: found.reason, a: view(found.a, focus.a), b: view(found.b, focus.b) }
      : null;
  const ordering = focus?.alignment?.ordering;
  const decided = focus ? confirmedCause(focus, options.confirmation) : null;
  return {
    schema: REPORT_SCHEMA,
    verdict: comparison.verdict,
    runs: { a: runView(focus?.a ?? null), b: runView(focus?.b ?? null) },
    firstDivergence: divergence(focus?.first ?? null),
    outputDivergence: divergence(focus?.output ?? null),
    cause: focus && decided ? withBump(causeView(focus, decided, names, options.root), options.bump?.attribution.cause ?? null) : null,
    ordering: ordering ? { index: ordering.index, contexts: [names[ordering.a.ctx]!, names[ordering.b.ctx]!] } : null,
    confirmation: options.confirmation
      ? { status: options.confirmation.status, pinned: options.confirmation.pinned, total: options.confirmation.total, runs: options.confirmation.runs }
      : null,
    nearby: decided?.cause?.kind === 'outside' ? nearbyEvents(focus, names) : [],
    replay: options.replay ?? null,
    bump: options.bump ? bumpSection(options.bump) : null,
    perturbation: options.perturbation ?? null,
    timeline: focus ? buildTimeline(focus, (row, side) => eventView(row, side === 'a' ? focus.a! : focus.b!, names)) : null,
    differences: {
      processes: comparison.processes.map((process) => ({ process: process.lineage, verdict: process.verdict, inA: process.a !== null, inB: process.b !== null })),
      perApi: counts(focus, (kind) => names[kind.api]!, Infinity),
      perSite: counts(focus, siteLabel, MAX_SITES),
      uncontrolledValues: focus ? uncontrolledValues(focus) : 0,
    },
  };
}

/** The cause replay decided, when it did; else the heuristic one. */
function confirmedCause(process: ProcessComparison, confirmation: BisectResult | null | undefined): { cause: Cause | null; confirmed: boolean } {
  if (confirmation?.status === 'confirmed' && process.a && confirmation.pinned !== null) {
    const row = process.a.calls.filter((kind) => REPLAYABLE_FAMILIES.has(kind.spec.family)).at(confirmation.pinned - 1);
    if (row) {
      const rule = `replay: pinning run A's first ${confirmation.pinned} recorded values reproduces it, pinning ${confirmation.pinned - 1} does not`;
      return { cause: { kind: 'call', row, side: 'a', rule }, confirmed: true };
    }
  }
  if (confirmation?.status === 'outside') {
    const rule = `replay: pinning all ${confirmation.total} recorded clock, random and crypto values does not reproduce run A`;
    return { cause: { kind: 'outside', row: null, side: 'a', rule }, confirmed: true };
  }
  return { cause: process.cause, confirmed: false };
}

/** Run A's I/O, timer and fs calls nearest the first output divergence, nearest first (the earlier of two as near). */
function nearbyEvents(process: ProcessComparison | null, names: readonly string[]): EventView[] {
  if (!process?.a || !process.first) return [];
  const trace = process.a;
  const at = process.first.indexA;
  const nearby: EventView[] = [];
  const take = (index: number) => {
    const family = index >= 0 && index < trace.calls.length ? trace.calls.kind(index).spec.family : null;
    if (nearby.length < NEARBY && (family === 'fs' || family === 'timers')) nearby.push(eventView(trace.calls.at(index)!, trace, names));
  };
  for (let distance = 0; nearby.length < NEARBY && (at - distance >= 0 || at + distance < trace.calls.length); distance++) {
    take(at - distance);
    if (distance > 0) take(at + distance);
  }
  return nearby;
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

function causeView(process: ProcessComparison, { cause, confirmed }: { cause: Cause | null; confirmed: boolean }, names: readonly string[], root: string): CauseView | null {
  if (!cause) return null;
  const trace = cause.side === 'a' ? process.a! : process.b!;
  const event = cause.row ? eventView(cause.row, trace, names) : null;
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
    source: event?.site ? sourceOf(event.site, root) : null,
    bump: null,
  };
}

function withBump(cause: CauseView | null, change: LockfileChange | null): CauseView | null {
  return cause && change ? { ...cause, bump: bumpView(change) } : cause;
}

function bumpView(change: LockfileChange): BumpView {
  return { name: change.name, from: change.from, to: change.to, kind: change.kind, path: change.path };
}

function bumpSection({ verdict, seed, attribution }: NonNullable<BuildOptions['bump']>): BumpSectionView {
  return {
    verdict,
    seed,
    changes: attribution.changes.map((change) => ({ ...bumpView(change), direct: change.direct, path: change.path })),
    addedSites: attribution.added.map(({ api, package: pkg, file, line, column, fn, reached }) => ({ api, package: pkg, file, line, column, fn, reached })),
  };
}

/** The value the other run saw at the blamed call, when the call was made in both. */
function partnerOf(process: ProcessComparison, row: Row, side: 'a' | 'b'): ValueView | undefined {
  const pairs = process.alignment?.pairs;
  const partner = side === 'a' ? pairs?.partnerOfA(row.index) : pairs?.partnerOfB(row.index);
  const other = side === 'a' ? process.b : process.a;
  if (partner === undefined || partner < 0 || !other) return undefined;
  return valueView(other.calls.at(partner)!.event.value);
}

function eventView(row: Row, trace: LoadedTrace, names: readonly string[]): EventView {
  const { event } = row;
  const frames = trace.sites.get(event.site)?.frames ?? [];
  return {
    index: row.index,
    seq: event.seq,
    api: event.api,
    form: event.form,
    value: valueView(event.value),
    site: frames[0] ?? null,
    stack: frames,
    context: names[row.ctx]!,
    controlledBy: event.control === 1 ? 'detdrift' : event.control === 2 ? 'program' : null,
  };
}

function valueView(value: Row['event']['value']): ValueView {
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) return bytesToHex(value);
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

function siteLabel(kind: RowKind, trace: LoadedTrace): string {
  const frame = trace.sites.get(kind.site)?.frames[0];
  return frame ? `${kind.spec.api} ${frame.file}:${frame.line}:${frame.column}` : `${kind.spec.api} (stack not taken)`;
}
