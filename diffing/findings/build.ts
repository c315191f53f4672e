/** The report object, built from a comparison: everything it shows, found and read here (report/ renders it). */
import type { Row, LoadedTrace } from '../load.js';
import type { Comparison, ProcessComparison } from '../compare.js';
import type { BisectResult } from '../bisect.js';
import { confirmedCause } from '../cause.js';
import type { Divergence } from '../localize.js';
import type { Attribution } from '../attribute.js';
import { OriginalFrames } from '../source-maps/original.js';
import { callKey, type StackOutcome } from '../stacks.js';
import { compareLineage } from '../../tracer/lineage.js';
import { runNames } from '../../report/text.js';
import {
  REPORT_SCHEMA,
  type AttemptView,
  type BumpSectionView,
  type BumpVerdict,
  type DivergenceView,
  type EventView,
  type FailureView,
  type OrderingView,
  type PerturbationView,
  type Report,
  type RunNames,
  type RunView,
  type SeedView,
  type ShardView,
  type TestsView,
  type WarmupView,
} from '../../report/types.js';
import { bumpSection, causeView, withBump } from './cause-view.js';
import { counts, siteLabel, uncontrolledValues } from './counts.js';
import { eventView, originalsIn, type Originals, type Taken } from './events.js';
import { buildTimeline } from './timeline.js';
import { nextSteps } from './next.js';

export interface BuildOptions {
  /** the project root on this disk, for code frames */
  readonly root: string;
  /** replay bisection's result, which overrides the heuristic cause when it decides */
  readonly confirmation?: BisectResult | null;
  /** the one-line command that replays run A */
  readonly replay?: string | null;
  /** `detdrift bump`: the lockfile changes, their scanned sites, and the verdict over the runs */
  readonly bump?: {
    readonly verdict: BumpVerdict;
    readonly seed: string | null;
    readonly attribution: Attribution;
    /** the project's own files head changed besides lockfiles and manifests (cli/bump/own-changes.ts) */
    readonly ownChanges?: BumpSectionView['ownChanges'];
  } | null;
  /** `detdrift check --perturb`: which perturbation run A had, and every one tried (cli/check/perturb.ts) */
  readonly perturbation?: PerturbationView | null;
  /** stacks a replay re-run took, or failed to take, for calls their runs did not sample (cli/shared/stacks.ts) */
  readonly stacks?: readonly StackOutcome[] | null;
  /** `check --runs N` (N > 2): each later run compared with the first */
  readonly attempts?: readonly AttemptView[] | null;
  /** `check`: the command failed in at least one run */
  readonly failure?: FailureView | null;
  /** `check`, `bump`: the seeds checked in turn, and the shard of the seed list they are */
  readonly seeds?: readonly SeedView[] | null;
  readonly shard?: ShardView | null;
  /** `check`, `bump`: the warm-up run that filled a runner's caches before the compared runs */
  readonly warmup?: WarmupView | null;
  /**
   * what the report calls its runs when neither run A and run B nor a bump's base and head fit (the demo's
   * are base and head)
   */
  readonly runNames?: RunNames | null;
}

const NEARBY = 8;

const MAX_SITES = 20;

/** Builds the one report object that every renderer draws. The same comparison gives the same report. */
export function buildReport(comparison: Comparison, options: BuildOptions): Report {
  const focus = comparison.diverging ?? comparison.processes[0] ?? null;
  const names = comparison.interner.names;
  const outcomes = (options.stacks ?? []).filter((outcome) => outcome.ask.lineage === focus?.lineage);
  const taken: Taken = new Map(
    outcomes.flatMap((outcome) =>
      outcome.frames ? [[callKey(outcome.ask.side, outcome.ask.index), outcome.frames] as const] : [],
    ),
  );
  const originals = originalsIn(options.root);
  const view = (row: Row | null, side: 'a' | 'b'): EventView | null => {
    const trace = side === 'a' ? focus?.a : focus?.b;
    return row && trace ? eventView(row, trace, names, originals, taken.get(callKey(side, row.index))) : null;
  };
  const divergence = (found: Divergence | null): DivergenceView | null =>
    found && focus
      ? {
          process: focus.lineage,
          index: { a: found.indexA, b: found.indexB },
          reason: found.reason,
          a: view(found.a, 'a'),
          b: view(found.b, 'b'),
        }
      : null;
  // Runs that agree may have run in another order in any process: the first that did says how.
  const ordered = comparison.diverging
    ? focus
    : (comparison.processes.find((process) => process.alignment?.ordering) ?? null);
  const ordering = ordered?.alignment?.ordering;
  const decided = focus ? confirmedCause(focus, options.confirmation) : null;
  const report: Omit<Report, 'next'> = {
    schema: REPORT_SCHEMA,
    verdict: comparison.verdict,
    tests: testsView(comparison),
    runs: { a: runView(focus?.a ?? null), b: runView(focus?.b ?? null) },
    runNames: options.runNames ?? null,
    firstDivergence: divergence(focus?.first ?? null),
    outputDivergence: divergence(focus?.output ?? null),
    cause:
      focus && decided
        ? withBump(
            causeView(
              decided.cause?.process ?? focus,
              decided,
              names,
              { root: options.root, runs: runNames(options) },
              originals,
              outcomes,
            ),
            options.bump?.attribution.cause ?? null,
          )
        : null,
    ordering: ordering ? orderingView(ordered!, names) : null,
    confirmation: options.confirmation
      ? {
          status: options.confirmation.status,
          pinned: options.confirmation.pinned,
          total: options.confirmation.total,
          runs: options.confirmation.runs,
        }
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
    warmup: options.warmup ?? null,
    traceProblems: comparison.problems.map(({ lineage, side, file, code, from, to, message }) => ({
      process: lineage,
      run: side,
      trace: file,
      code,
      bytes: { from, to },
      message,
    })),
    differences: {
      processes: processList(comparison),
      matched: matched(comparison),
      perApi: counts(focus, (kind) => names[kind.api]!, Infinity),
      perSite: counts(focus, (kind, trace) => siteLabel(kind, trace, originals), MAX_SITES),
      uncontrolledValues: focus ? uncontrolledValues(focus) : 0,
    },
  };
  return { ...report, next: nextSteps(report) };
}

/**
 * Each process of either run, in lineage order, and whether it diverges: a process that ran tests
 * diverges when one of its tests does (in the run that ran it there).
 */
function processList({ processes }: Comparison): Report['differences']['processes'] {
  const found = new Map<string, { verdict: 'agree' | 'diverge'; inA: boolean; inB: boolean }>();
  const add = (lineage: string, verdict: 'agree' | 'diverge', inA: boolean, inB: boolean) => {
    const entry = found.get(lineage) ?? { verdict: 'agree', inA: false, inB: false };
    found.set(lineage, {
      verdict: entry.verdict === 'diverge' ? 'diverge' : verdict,
      inA: entry.inA || inA,
      inB: entry.inB || inB,
    });
  };
  for (const process of processes) {
    const { test } = process;
    if (!test) add(process.lineage, process.verdict, process.a !== null, process.b !== null);
    if (test?.lineages.a) add(test.lineages.a, process.verdict, true, false);
    if (test?.lineages.b) add(test.lineages.b, process.verdict, false, true);
  }
  return [...found].sort(([x], [y]) => compareLineage(x, y)).map(([process, entry]) => ({ process, ...entry }));
}

/** The tests compared, and the first that differs with what differs in it. */
function testsView({ tests, diverging }: Comparison): TestsView | null {
  if (!tests) return null;
  const test = diverging?.test;
  if (!test) return { ...tests, first: null };
  const { file, name, occurrence, lineages, outcomes } = test;
  const differs =
    lineages.a === null || lineages.b === null
      ? 'missing'
      : outcomes.a !== outcomes.b
        ? 'outcome'
        : diverging.output
          ? 'output'
          : 'calls';
  return { ...tests, first: { file, name, occurrence, process: lineages, outcome: outcomes, differs } };
}

/** Run A's I/O, timer and fs calls nearest the first output divergence, nearest first (the earlier of two as near). */
function nearbyEvents(
  process: ProcessComparison | null,
  names: readonly string[],
  originals: Originals,
  taken: Taken,
): EventView[] {
  if (!process?.a || !process.first) return [];
  const trace = process.a;
  const at = process.first.indexA;
  const nearby: EventView[] = [];
  const take = (index: number) => {
    const family = index >= 0 && index < trace.calls.length ? trace.calls.kind(index).spec.family : null;
    if (nearby.length < NEARBY && (family === 'fs' || family === 'timers'))
      nearby.push(eventView(trace.calls.at(index)!, trace, names, originals, taken.get(`a:${index}`)));
  };
  for (
    let distance = 0;
    nearby.length < NEARBY && (at - distance >= 0 || at + distance < trace.calls.length);
    distance++
  ) {
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

/** Every process both runs have: how many, and run A's calls and outputs in them. */
function matched({ processes }: Comparison): NonNullable<Report['differences']['matched']> {
  const both = processes.filter((process) => process.a && process.b);
  const sum = (count: (trace: LoadedTrace) => number) => both.reduce((total, process) => total + count(process.a!), 0);
  return {
    processes: both.length,
    calls: sum((trace) => trace.calls.length),
    outputs: sum((trace) => trace.outputs.length),
  };
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
