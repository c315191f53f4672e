import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { TRACE_EXTENSION } from '../tracer/format.js';
import { EMPTY_TRACE, isEmptyTrace, type TraceProblem } from '../tracer/reader.js';
import { compareLineage } from '../tracer/lineage.js';
import { align, type Alignment } from './align.js';
import { findCause, NOT_EXPLAINED, type Cause } from './cause.js';
import { crossedCause } from './crossing.js';
import { CallIdentities, type SourceRoots } from './identity.js';
import { keptCalls, keptOutputs, type IgnoreRules, type TakenStacks } from './ignore.js';
import { firstDivergence, firstOutputDivergence, type Divergence } from './localize.js';
import { Interner, loadTrace, noRows, type LoadedTrace, type Rows } from './load.js';
import type { RowKind } from './rows.js';
import { activeRunners, runnersProcess, type RunnerProfile } from './runners.js';
import { viewTrace } from './view.js';
import { pairView } from '../platforms/index.js';
import { inWindow, pairTests, testProcesses, type TestIdentity, type TestPair, type TestWindow } from './tests.js';

/** A test compared: which, the process it ran in in each run (null: not run), and how it ended. */
export interface TestCompared extends TestIdentity {
  readonly lineages: { readonly a: string | null; readonly b: string | null };
  readonly outcomes: { readonly a: string | null; readonly b: string | null };
  /** where its events are in each run's trace of that process */
  readonly windows: { readonly a: TestWindow | null; readonly b: TestWindow | null };
}

/** One process (by lineage) in both runs, or one test of a test runner's. */
export interface ProcessComparison {
  readonly lineage: string;
  /** the test compared, whose events these are (the traces are seen through its window); null for a whole process */
  readonly test: TestCompared | null;
  readonly a: LoadedTrace | null;
  readonly b: LoadedTrace | null;
  readonly alignment: Alignment | null;
  readonly output: Divergence | null;
  readonly first: Divergence | null;
  readonly cause: Cause | null;
  readonly verdict: 'agree' | 'diverge';
}

export interface Comparison {
  readonly verdict: 'agree' | 'diverge';
  /** the dependency trees differ (lockfile digests do), so new calls are blamed before values */
  readonly codeChanged: boolean;
  readonly processes: readonly ProcessComparison[];
  /** the first diverging test (by file), else the first diverging process in lineage order: what the report is about */
  readonly diverging: ProcessComparison | null;
  /** under a test runner: how many tests were compared, and how many differ; null for a plain program */
  readonly tests: { readonly compared: number; readonly differing: number } | null;
  readonly interner: Interner;
  /** the traces were compared through platforms/ views: paths, line endings and host identity normalized */
  readonly normalized: boolean;
  /** the test runners whose own calls and outputs were left out (diffing/runners.ts); replay judges by them too */
  readonly runners: readonly RunnerProfile[];
  /** what was wrong with the traces, read past: the comparison covers what could be read */
  readonly problems: readonly TraceNote[];
}

/**
 * A problem of one trace compared (tracer/reader.ts TraceProblem), or ERR_TRACE_EMPTY: a trace
 * file of no bytes in a directory, compared as a process that recorded nothing.
 */
export interface TraceNote {
  readonly lineage: string;
  readonly side: 'a' | 'b';
  readonly file: string;
  readonly code: TraceProblem['code'] | 'ERR_TRACE_EMPTY';
  /** the bytes it is about: [from, to) */
  readonly from: number;
  readonly to: number;
  readonly message: string;
}

export interface CompareOptions {
  /** overrides the lockfile check: true when base and head of a bump are compared */
  readonly codeChanged?: boolean;
  /**
   * Compare through platforms/ views (portable project-relative paths, `\r\n` read as `\n`, host
   * identity and stat times as placeholders). Default: when the two traces' platforms differ; a CI
   * matrix sets it for every pair, since its runs come from different machines.
   */
  readonly normalize?: boolean;
  /** calls left out by their call site's package or file, and test runners' own (the config's `ignore`, `runners`) */
  readonly ignore?: IgnoreRules;
  /**
   * where each run's sources are (the roots of the projects they ran in): a call whose location
   * is gone from the other run is then matched by its identity across versions (diffing/identity.ts)
   */
  readonly sources?: SourceRoots;
  /**
   * a bump's changed packages as head has them (`name@version`): a call B makes from one of them
   * and A does not is the cause before any other (diffing/cause.ts, rule 1)
   */
  readonly changed?: ReadonlySet<string>;
  /** stacks replays took for calls their runs did not sample, by `takenKey` (cli/shared/stacks.ts) */
  readonly taken?: ReadonlyMap<string, TakenStacks>;
}

/** Where CompareOptions.taken keeps the stacks taken in one run's trace of one process. */
export function takenKey(side: 'a' | 'b', lineage: string): string {
  return `${side}:${lineage}`;
}

/** Compares two traces, or two trace directories process by process (matched by lineage). */
export function compare(pathA: string, pathB: string, options: CompareOptions = {}): Comparison {
  const interner = new Interner();
  const filesA = traceFiles(pathA);
  const filesB = traceFiles(pathB);
  const single = filesA.size === 1 && filesB.size === 1 && isFile(pathA) && isFile(pathB);
  const lineages = single ? ['0'] : [...new Set([...filesA.keys(), ...filesB.keys()])].sort(compareLineage);
  const empty: TraceNote[] = [];
  const load = (files: Map<string, string>, lineage: string, side: 'a' | 'b') => {
    const file = single ? [...files.values()][0] : files.get(lineage);
    try {
      return file ? loadTrace(file, interner) : null;
    } catch (error) {
      if (!isEmptyTrace(error)) throw error;
      empty.push({
        lineage,
        side,
        file: file!,
        code: 'ERR_TRACE_EMPTY',
        from: 0,
        to: 0,
        message: `empty (${EMPTY_TRACE})`,
      });
      return null;
    }
  };
  // A process whose traces are both empty recorded nothing in either run: there is nothing to compare.
  const raw = lineages
    .map((lineage) => [lineage, load(filesA, lineage, 'a'), load(filesB, lineage, 'b')] as const)
    .filter(([, a, b]) => a || b);
  const normalized = raw.some(([, a, b]) => a && b && (options.normalize ?? a.header.platform !== b.header.platform));
  const loaded = normalized
    ? raw.map(([lineage, a, b]) => [lineage, ...acrossPlatforms(a, b, interner)] as const)
    : raw;
  const codeChanged = options.codeChanged ?? loaded.some(([, a, b]) => a && b && lockfileChanged(a, b));
  const traces = loaded.flatMap(([, a, b]) => [a, b].filter((trace) => trace !== null));
  const runners = activeRunners(options.ignore?.runners, traces);
  const identities = new CallIdentities();
  const kept = new KeptRows(options.ignore, runners, options.taken);
  const compareOne = (
    lineage: string,
    a: LoadedTrace | null,
    b: LoadedTrace | null,
    test: TestCompared | null,
    calls = true,
  ) => compareProcess(lineage, a, b, codeChanged, options, kept, identities, test, calls);
  // Under a test runner the unit is the test: each test's outcome and output, wherever it ran; the
  // rest of a process that ran tests is the runner's (its module loads, its reporting).
  // `runners: "off"` compares the runner's work too: whole processes, as for a plain program.
  const pairs = options.ignore?.runners === 'off' ? null : pairTests(loaded, interner);
  const tested = pairs ? testProcesses(pairs) : new Set<string>();
  const tests = (pairs ?? []).map((pair) => compareTest(pair, loaded, compareOne));
  const compared = [
    ...tests,
    ...loaded
      .filter(([lineage]) => !tested.has(lineage))
      .map(([lineage, a, b]) => compareOne(lineage, a, b, null, !pairs || !isRunners(a, b, runners))),
  ];
  const first = compared.find((process) => process.verdict === 'diverge') ?? null;
  const diverging = first && acrossProcesses(first, compared, codeChanged, options.changed);
  const processes = compared.map((process) => (process === first ? diverging! : process));
  const verdict = diverging ? 'diverge' : 'agree';
  const notes = [
    ...empty,
    ...raw.flatMap(([lineage, a, b]) => [...notesOf(lineage, 'a', a), ...notesOf(lineage, 'b', b)]),
  ];
  // Stable: each trace's problems stay in file order.
  const problems = notes.sort((x, y) => compareLineage(x.lineage, y.lineage) || x.side.localeCompare(y.side));
  const testCounts = pairs
    ? { compared: tests.length, differing: tests.filter((test) => test.verdict === 'diverge').length }
    : null;
  return { verdict, codeChanged, processes, diverging, tests: testCounts, interner, normalized, runners, problems };
}

/** The diverging process, with the cause a child's value carried into it when none of its own explains it. */
function acrossProcesses(
  focus: ProcessComparison,
  processes: readonly ProcessComparison[],
  codeChanged: boolean,
  changed: ReadonlySet<string> | undefined,
): ProcessComparison {
  if (focus.test !== null || focus.cause?.rule !== NOT_EXPLAINED) return focus;
  const cause = crossedCause(focus, processes, codeChanged, changed);
  return cause ? { ...focus, cause } : focus;
}

/**
 * A process of the runner's own (its main process, a worker that ran no test): where tests are
 * compared, only what it showed is, its exit status above all; its calls (finding test files,
 * caching, reporting) are the runner's, and differ between a bump's trees.
 */
function isRunners(a: LoadedTrace | null, b: LoadedTrace | null, runners: readonly RunnerProfile[]): boolean {
  return [a, b].some((trace) => trace !== null && runnersProcess(trace, runners));
}

/** One test of both runs, each seen through its window in the process it ran in. */
function compareTest(
  pair: TestPair,
  loaded: readonly (readonly [string, LoadedTrace | null, LoadedTrace | null])[],
  compareOne: (lineage: string, a: LoadedTrace | null, b: LoadedTrace | null, test: TestCompared) => ProcessComparison,
): ProcessComparison {
  const trace = (lineage: string | undefined, side: 1 | 2) =>
    loaded.find((entry) => entry[0] === lineage)?.[side] ?? null;
  const a = pair.a && trace(pair.a.lineage, 1);
  const b = pair.b && trace(pair.b.lineage, 2);
  const { file, name, occurrence } = pair;
  return compareOne((pair.a ?? pair.b)!.lineage, a, b, {
    file,
    name,
    occurrence,
    lineages: { a: pair.a?.lineage ?? null, b: pair.b?.lineage ?? null },
    outcomes: { a: pair.a?.outcome ?? null, b: pair.b?.outcome ?? null },
    windows: { a: pair.a, b: pair.b },
  });
}

function notesOf(lineage: string, side: 'a' | 'b', trace: LoadedTrace | null): TraceNote[] {
  return trace ? trace.ending.problems.map((problem) => ({ lineage, side, file: trace.file, ...problem })) : [];
}

/** Both traces of a process seen through their platforms' views (a process only one run has stays as it is). */
function acrossPlatforms(
  a: LoadedTrace | null,
  b: LoadedTrace | null,
  interner: Interner,
): [LoadedTrace | null, LoadedTrace | null] {
  if (!a || !b) return [a, b];
  const view = pairView(a, b);
  return [viewTrace(a, view.a, interner), viewTrace(b, view.b, interner)];
}

function compareProcess(
  lineage: string,
  a: LoadedTrace | null,
  b: LoadedTrace | null,
  codeChanged: boolean,
  options: CompareOptions,
  kept: KeptRows,
  identities: CallIdentities,
  test: TestCompared | null,
  /** false for a runner's own process where tests are compared: its outputs only */
  calls = true,
): ProcessComparison {
  // A process only one run started is compared with one that never ran: all it did is missing from the other.
  const left = a ?? absent(b!);
  const right = b ?? absent(a!);
  const { sources } = options;
  const identify =
    sources &&
    ((side: 'a' | 'b', kind: RowKind) =>
      identities.of((side === 'a' ? left : right).sites.get(kind.site), sources[side]));
  const rowsOf = (side: 'a' | 'b', trace: LoadedTrace) => {
    const window = test?.windows[side];
    const rows = kept.of(side, window?.lineage ?? lineage, trace);
    if (!calls) return { calls: rows.calls.slice(0, 0), outputs: rows.outputs };
    if (!window) return rows;
    return { calls: inWindow(rows.calls, window.calls), outputs: inWindow(rows.outputs, window.outputs) };
  };
  const rowsA = rowsOf('a', left);
  const rowsB = rowsOf('b', right);
  const alignment = align(rowsA.calls, rowsB.calls, identify);
  const output = firstOutputDivergence({ ...left, outputs: rowsA.outputs }, { ...right, outputs: rowsB.outputs });
  // A test is judged by what it showed (its outcome, its output): the runner's own calls in its
  // context (a throttled report, a timeout) may come and go around it.
  const judged = test === null || !a || !b || output !== null;
  const first = judged ? firstDivergence(alignment, output, left, right) : null;
  const cause = first ? findCause(alignment, first, output, codeChanged, left, right, options.changed) : null;
  return { lineage, test, a, b, alignment, output, first, cause, verdict: first ? 'diverge' : 'agree' };
}

/**
 * The calls and outputs of each trace that a comparison keeps (the config's `ignore`, the runners'
 * own), found once per trace: every test of a process is compared through them.
 */
class KeptRows {
  private readonly found = new Map<LoadedTrace, { readonly calls: Rows; readonly outputs: Rows }>();

  constructor(
    private readonly ignore: IgnoreRules | undefined,
    private readonly runners: readonly RunnerProfile[],
    private readonly taken: ReadonlyMap<string, TakenStacks> | undefined,
  ) {}

  of(side: 'a' | 'b', lineage: string, trace: LoadedTrace): { readonly calls: Rows; readonly outputs: Rows } {
    let rows = this.found.get(trace);
    if (rows === undefined) {
      const taken = this.taken?.get(takenKey(side, lineage));
      rows = {
        calls: keptCalls(trace, this.ignore, this.runners, taken),
        outputs: keptOutputs(trace, this.runners),
      };
      this.found.set(trace, rows);
    }
    return rows;
  }
}

function absent(other: LoadedTrace): LoadedTrace {
  const ending = { complete: false, truncated: false, truncatedAt: null, exitCode: null, events: 0, problems: [] };
  return {
    file: '',
    header: other.header,
    ending,
    sites: new Map(),
    contexts: new Map(),
    sources: new Map(),
    calls: noRows(),
    outputs: noRows(),
  };
}

function lockfileChanged(a: LoadedTrace, b: LoadedTrace): boolean {
  const lockA = a.header.lockfile?.sha256;
  const lockB = b.header.lockfile?.sha256;
  return lockA !== undefined && lockB !== undefined && lockA !== lockB;
}

export function traceFiles(path: string): Map<string, string> {
  if (isFile(path)) return new Map([[lineageOf(path), path]]);
  const files = new Map<string, string>();
  for (const name of readdirSync(path)) {
    if (name.endsWith(TRACE_EXTENSION)) files.set(name.slice(0, -TRACE_EXTENSION.length), join(path, name));
  }
  return files;
}

function lineageOf(file: string): string {
  const name = file.split(/[\\/]/).pop()!;
  return name.endsWith(TRACE_EXTENSION) ? name.slice(0, -TRACE_EXTENSION.length) : name;
}

function isFile(path: string): boolean {
  return statSync(path).isFile();
}
