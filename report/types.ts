/**
 * The report: one object, several renderers. Its JSON form is a stable contract, versioned by
 * `schema`; add fields, never change the meaning of one.
 */

import type { MatrixLabel } from '../platforms/matrix.js';

export const REPORT_SCHEMA = 'detdrift.report/1';

export interface FrameView {
  /** the original source's file and position when a source map gives them, else where the code ran */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly fn: string | null;
  readonly package: string | null;
  /** where the code that ran had this frame, when a source map moved it to its original source */
  readonly generated?: { readonly file: string; readonly line: number; readonly column: number };
  /** why the source map that the frame's file names could not be used: the position is the generated one */
  readonly sourceMapError?: string;
}

/** An output's value: the digest of its bytes, their length, and a head (the text's start, a file's path). */
export interface ChunkView {
  readonly digest: string;
  readonly length: number;
  readonly head: string;
}

export type ValueView = number | string | readonly string[] | ChunkView | null;

export interface EventView {
  /** index among the run's calls (outputs: among its outputs) */
  readonly index: number;
  /** sequence number in the trace file */
  readonly seq: number;
  readonly api: string;
  readonly form: string;
  readonly value: ValueView;
  readonly site: FrameView | null;
  readonly stack: readonly FrameView[];
  /** the async context path: `root.9.6.3` */
  readonly context: string;
  /** who decided the value: null (the real source), 'detdrift' (control mode), 'program' (its own stub) */
  readonly controlledBy: 'detdrift' | 'program' | null;
}

export interface RunView {
  readonly trace: string;
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly mode: string;
  readonly seed: string | null;
  readonly command: readonly string[];
  readonly lockfile: string | null;
  readonly calls: number;
  readonly outputs: number;
  readonly complete: boolean;
  readonly exitCode: number | null;
}

export type Reason = 'value' | 'structure' | 'output' | 'missing';

export interface DivergenceView {
  readonly process: string;
  readonly index: { readonly a: number; readonly b: number };
  readonly reason: Reason;
  readonly a: EventView | null;
  readonly b: EventView | null;
}

export interface SourceView {
  readonly file: string;
  readonly line: number;
  /** the blamed call's column on `line` (1-based); absent in older reports */
  readonly column?: number;
  /** the lines around it, `[lineNumber, text]` */
  readonly lines: ReadonlyArray<readonly [number, string]>;
}

export interface BumpView {
  readonly name: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly kind: string;
  /** the chain of package names from a direct dependency to this one (`[name]` when direct); absent in older reports */
  readonly path?: readonly string[];
}

/** A dependency bump's effect on one seed's run (`detdrift bump`). */
export type BumpVerdict =
  /** base and head run the seed the same way */
  | 'unchanged'
  /** head runs the seed differently from base, and the same way twice */
  | 'changed'
  /** base ran the seed the same way twice, head does not */
  | 'made-nondeterministic'
  /** base already ran the seed differently twice */
  | 'already-nondeterministic';

export interface BumpSectionView {
  readonly verdict: BumpVerdict;
  readonly seed: string | null;
  /**
   * the project's own files that differ between base and head besides its lockfiles and manifests
   * (committed, and uncommitted in a working-tree head): the bump is then not all that changed;
   * absent in older reports
   */
  readonly ownChanges?: { readonly files: readonly string[]; readonly uncommitted: number } | null;
  /** every package whose resolved version changed in the lockfile */
  readonly changes: ReadonlyArray<BumpView & { readonly direct: boolean; readonly path: readonly string[] }>;
  /** clock and entropy call sites the new versions added (static scan), and whether head reached them */
  readonly addedSites: ReadonlyArray<{
    readonly api: string;
    readonly package: string;
    readonly file: string;
    readonly line: number;
    readonly column: number;
    readonly fn: string | null;
    readonly reached: boolean;
    /** only in builds for browsers, which Node does not load: listed apart; absent in older reports */
    readonly browserOnly?: boolean;
  }>;
}

export interface CauseView {
  readonly kind: 'call' | 'ordering' | 'outside';
  readonly api: string | null;
  readonly form: string | null;
  readonly site: FrameView | null;
  readonly package: string | null;
  readonly firstPartySite: FrameView | null;
  readonly stack: readonly FrameView[];
  /** which run the blamed call was seen in */
  readonly run: 'a' | 'b';
  readonly value: { readonly a: ValueView; readonly b: ValueView } | null;
  /** the two async contexts, for an ordering cause */
  readonly contexts: readonly string[] | null;
  readonly confidence: 'heuristic' | 'replay-confirmed';
  readonly rule: string;
  readonly source: SourceView | null;
  readonly bump: BumpView | null;
  /**
   * when the blamed call's run did not sample its stack: how the site was had, or why there is none; null (or
   * absent) when the run took it
   */
  readonly stackNote?: StackNoteView | null;
  /**
   * the process the blamed call was made in (its lineage and command): for a call, the one that
   * diverged (`firstDivergence.process`), or a child process or worker thread of it whose value
   * crossed into it; null for no call; absent in older reports
   */
  readonly process?: { readonly lineage: string; readonly command: readonly string[] } | null;
}

/**
 * The stack of a blamed call its run did not sample (stacks are taken for the first calls of each
 * API, then a sample), and what was done about it.
 */
export interface StackNoteView {
  /**
   * `replayed`: a replay of the run took it (DETDRIFT_STACKS_AT), and the site shown is that
   * call's. `not-sampled`: there is none, and no re-run was made (traces only: `diff`, `matrix`),
   * or none can ask for it. `not-reproduced`: a replay parted from the recording before the call;
   * no site is shown rather than another call's.
   */
  readonly status: 'replayed' | 'not-sampled' | 'not-reproduced';
  readonly process: string;
  /** the call's number among its API's calls in that process, from 0: the count the sampling keeps */
  readonly ordinal: number;
  /**
   * DETDRIFT_STACKS_AT's value (`LINEAGE:API:ORDINAL[,...]`) that asks the hook for this call's stack (for fs
   * and timers, its neighbours' too: their events can be counted a few off)
   */
  readonly stacksAt: string;
  /** what happened and, when the site is missing, how to take it */
  readonly detail: string;
}

/** What replay bisection found (diffing/bisect.ts). */
export interface ConfirmationView {
  readonly status: 'confirmed' | 'outside' | 'not-reproduced' | 'unstable';
  /** the smallest number of run A's recorded values that, pinned, reproduced run A */
  readonly pinned: number | null;
  /** how many of run A's values replay can pin (clock, random, crypto) */
  readonly total: number;
  /** how many re-runs it took */
  readonly runs: number;
}

/** `detdrift check --perturb`: the perturbation run A had, and every one tried against the plain run B. */
export interface PerturbationView {
  /** the perturbation that made the runs part (`dir-order`, `clock:dst`); null when none did */
  readonly dimension: string | null;
  /** what run A got instead (`TZ=Pacific/Chatham`); null when none made the runs part */
  readonly detail: string | null;
  /** each perturbed run, in the order tried, with its verdict against the plain run */
  readonly tried: ReadonlyArray<{
    readonly dimension: string;
    readonly detail: string;
    readonly verdict: 'agree' | 'diverge';
  }>;
}

export interface CountView {
  readonly key: string;
  readonly a: number;
  readonly b: number;
}

/** One call in a timeline lane. */
export interface TimelineCall {
  /** index among the run's calls */
  readonly index: number;
  readonly api: string;
  /** the API family (`clock`, `random`, `crypto`, `timers`, `fs`, `process`): what the lanes are colored by */
  readonly family: string;
  readonly site: FrameView | null;
  /** the value as text, clipped (a trace string may be any length) */
  readonly value: string;
}

/**
 * One step of the two lanes: the same call in both runs (`equal`, or `changed` when its value
 * should agree and does not), or a call only run A made (`removed`) or only run B (`inserted`).
 */
export interface TimelineOp {
  readonly kind: 'equal' | 'changed' | 'removed' | 'inserted';
  readonly a: TimelineCall | null;
  readonly b: TimelineCall | null;
}

/**
 * The diverging process's two call streams, aligned in a bounded window around the first
 * divergence: the calls before and after the window are only counted, so a trace of millions of
 * events gives a timeline of a few hundred steps.
 */
export interface TimelineView {
  readonly process: string;
  /** calls of each run before the window: they precede the first divergence */
  readonly before: { readonly a: number; readonly b: number };
  readonly ops: readonly TimelineOp[];
  /**
   * where in `ops` the first divergence is: `ops[at]` is the diverging call; for an output
   * divergence, the outputs part after the calls before `ops[at]`. `ops.length` when it is past them.
   */
  readonly at: number;
  /** calls of each run after the window, not aligned here */
  readonly after: { readonly a: number; readonly b: number };
}

/** Where two runs made the same calls in another order (report.ordering). */
export interface OrderingView {
  /** run A's call index where the orders part */
  readonly index: number;
  /** the process (spawn lineage) whose calls these are; absent in older reports, where it is the first process's */
  readonly process?: string;
  /** the two async contexts whose calls are there, run A's then run B's */
  readonly contexts: readonly [string, string];
  /**
   * calls one run made in one context and the other in another: the work a callback did because
   * it came first or last (`if (++done === n)`); absent in older reports
   */
  readonly moved?: number;
}

/** `check`: the command exited with a non-zero status: in which runs, and how its stderr ended. */
export interface FailureView {
  /** every run's status, in order (128+N for a run a signal ended) */
  readonly statuses: readonly number[];
  /** the last lines the first failing run wrote to stderr, where its error is */
  readonly stderr: readonly string[];
}

/** One later run of a `check`, compared with the first. */
export interface AttemptView {
  readonly run: number;
  /** its heuristic cause in a few words (`Math.random at dice@1.0.1/index.js:2`); null when it agreed */
  readonly cause: string | null;
}

/**
 * One seed of a seed list (`--seeds`, the config's seeds, a shard's share, every shard's after
 * `detdrift merge`) and what checking it found.
 */
export interface SeedView {
  /** as typed; null: the runs had no seed */
  readonly seed: string | null;
  /**
   * `agree` or `diverge`: what its runs did (for a bump: `diverge` unless the bump left its run
   * unchanged); `not-checked`: an earlier seed of the same run diverged, and the check stopped there
   */
  readonly verdict: 'agree' | 'diverge' | 'not-checked';
  /** its heuristic cause in a few words (`Math.random at app.js:5`) when it diverged; else null */
  readonly cause: string | null;
  /** `detdrift bump`: what the bump did to its run; null when not checked, and for other commands */
  readonly bump: BumpVerdict | null;
  /** after `detdrift merge`: the shard that checked it (from 1); null (or absent) otherwise */
  readonly shard?: number | null;
}

/**
 * `check`, `bump`: a first run made only to fill the caches of a runner or loader (Jest's haste map
 * and transform cache, Vitest's results cache, tsx's and ts-node's compile caches), then left out of
 * the comparison: a cold cache in the first run and a warm one in the second is no difference of the
 * program's.
 */
export interface WarmupView {
  /** the runners and loaders with a cache that the run was for (`jest`, `tsx`); empty for `--warmup on` alone */
  readonly runners: readonly string[];
  /** how they were found: `command` (it names them), `traces` (the first run's stacks), `option` (`--warmup on`) */
  readonly found: 'command' | 'traces' | 'option';
  /** `bump`: the dependency trees that had one (`base`, `head`), each in its own checkout; absent for `check` */
  readonly trees?: readonly ('base' | 'head')[];
}

/** `--shard I/N`: the share of the seed list a report checked (cli/shared/seeds.ts cuts it). */
export interface ShardView {
  /** which share, from 1 */
  readonly index: number;
  /** how many shares the list was cut into */
  readonly total: number;
  /** how many seeds the whole list names, every share's together */
  readonly seeds: number;
}

/**
 * Something wrong with a trace the report compared, read past: the comparison covers what could
 * be read. `code` is ERR_TRACE_EMPTY (a file of no bytes: the process recorded nothing),
 * ERR_TRACE_TRUNCATED (the file stops inside its last chunk), ERR_TRACE_CORRUPT (bytes skipped,
 * up to the next chunk that checks out) or ERR_TRACE_COUNT (the end record counts other events
 * than were read).
 */
export interface TraceProblemView {
  readonly process: string;
  readonly run: 'a' | 'b';
  readonly trace: string;
  readonly code: string;
  /** the bytes it is about: [from, to) */
  readonly bytes: { readonly from: number; readonly to: number };
  readonly message: string;
}

/** What people call the two runs: `base` and `head` when run A has a bump's base dependency tree, run B head's. */
export interface RunNames {
  readonly a: string;
  readonly b: string;
}

/** Under a test runner: the tests compared one by one, and the first whose outcome or output differs. */
export interface TestsView {
  readonly compared: number;
  readonly differing: number;
  /** the first differing test, by file: the one the report is about; null when every test agrees */
  readonly first: TestView | null;
}

export interface TestView {
  /** the test file, project-relative */
  readonly file: string;
  /** its name under its suites, as the runner shows it */
  readonly name: string;
  /** 1, or which run of a retried or repeated test */
  readonly occurrence: number;
  /** the process it ran in, in each run; null where that run did not run it */
  readonly process: { readonly a: string | null; readonly b: string | null };
  /** how it ended in each run: `pass`, `skip`, `fail` and the messages; null where it did not end */
  readonly outcome: { readonly a: string | null; readonly b: string | null };
  /** what differs: it ran in one run only, its outcome, what it printed, or only the values it drew */
  readonly differs: 'missing' | 'outcome' | 'output' | 'calls';
}

export interface Report {
  readonly schema: typeof REPORT_SCHEMA;
  readonly verdict: 'agree' | 'diverge';
  /** under a test runner: the tests compared, and the first that differs; null (or absent) for a plain program */
  readonly tests?: TestsView | null;
  readonly runs: { readonly a: RunView | null; readonly b: RunView | null };
  /** the names the renderers show the runs by; null (or absent): base and head for a bump, else run A and run B */
  readonly runNames?: RunNames | null;
  readonly firstDivergence: DivergenceView | null;
  readonly outputDivergence: DivergenceView | null;
  readonly cause: CauseView | null;
  /**
   * The first call the runs make in another order across async contexts: work that completed in
   * another order. When the runs agree, this is how they differ; null when they ran in one order.
   */
  readonly ordering: OrderingView | null;
  /** replay's verdict on the cause; null when it was not run (--no-confirm, a bump, no command) */
  readonly confirmation: ConfirmationView | null;
  /** when the cause is outside the hook: the I/O, timer and fs calls of run A nearest the first output divergence */
  readonly nearby: readonly EventView[];
  /** one command that replays run A locally */
  readonly replay: string | null;
  /**
   * why `replay` is null where a reader looks for it: a report read from a file (`merge`, `report`)
   * offers no command it names itself (cli/shared/report-replay.ts); null (or absent) otherwise
   */
  readonly replayNote?: string | null;
  /** `detdrift bump`: what the dependency bump changed; null for other commands */
  readonly bump: BumpSectionView | null;
  /** `detdrift check --perturb`: run A is the perturbed run, run B the plain one; null (or absent) otherwise */
  readonly perturbation?: PerturbationView | null;
  /**
   * `check --runs N` (N > 2): each later run compared with the first, with its heuristic cause when
   * it diverged; the report is about the first that diverged. Null (or absent) for two runs.
   */
  readonly attempts?: readonly AttemptView[] | null;
  /**
   * `check`: the command failed (a non-zero status) in at least one run; null (or absent) when it
   * succeeded every time. Runs that agree while failing every time are no check: exit status 2.
   */
  readonly failure?: FailureView | null;
  /**
   * Several seeds checked in turn (a seed list, a shard's share of one, or every shard's after
   * `detdrift merge`): each in list order with its verdict. The report is about the first that
   * diverged, else the last. Null (or absent) for one seed without `--shard`.
   */
  readonly seeds?: readonly SeedView[] | null;
  /** `--shard I/N`: the share of the seed list this report covers; null (or absent) otherwise, and after a merge */
  readonly shard?: ShardView | null;
  /** the two runs' calls around the first divergence, aligned; null (or absent) when the runs agree */
  readonly timeline?: TimelineView | null;
  /** `check`, `bump`: the warm-up run made before the compared runs, and why; null (or absent) when none was */
  readonly warmup?: WarmupView | null;
  /** what to do next, in order, for the renderers to phrase (report/describe.ts); absent in older reports */
  readonly next?: readonly NextStepView[];
  /** what was wrong with the traces compared, in process order (absent in older reports) */
  readonly traceProblems?: readonly TraceProblemView[];
  readonly differences: {
    readonly processes: ReadonlyArray<{
      readonly process: string;
      readonly verdict: 'agree' | 'diverge';
      readonly inA: boolean;
      readonly inB: boolean;
    }>;
    /** every process both runs have, all compared: their processes, calls and outputs (run A's); absent in older reports */
    readonly matched?: { readonly processes: number; readonly calls: number; readonly outputs: number };
    readonly perApi: readonly CountView[];
    readonly perSite: readonly CountView[];
    /**
     * matched calls whose values differ and that nothing controls (expected in observe mode), up to the first
     * divergence
     */
    readonly uncontrolledValues: number;
  };
}

/** One run of the matrix against the reference run of its seed. */
export interface MatrixRow {
  readonly name: string;
  readonly platform: string;
  readonly node: string;
  readonly seed: string | null;
  /** the run it was compared with */
  readonly reference: string;
  readonly verdict: 'agree' | 'diverge';
  readonly label: MatrixLabel;
  /** as in the report (`detdrift.report/1`); run A is the reference, run B this run */
  readonly firstDivergence: DivergenceView | null;
  readonly cause: CauseView | null;
}

/** `detdrift matrix --json`: a stable contract, versioned by `schema`; add fields, never change one. */
export interface MatrixReport {
  readonly schema: 'detdrift.matrix/1';
  readonly verdict: 'agree' | 'diverge';
  /** the run named by --reference, or the first Linux run */
  readonly reference: string;
  readonly runs: readonly MatrixRow[];
  /** runs of a seed the reference's platform and Node did not record: nothing to compare them with */
  readonly unpaired: readonly string[];
}

/** A step the reader can take next, as data: the renderers phrase it (describeNextStep). */
export type NextStepView =
  /** the source the runs part at is one control mode seeds: run in control mode */
  | { readonly kind: 'control-mode'; readonly api: string; readonly job: 'check' | 'bump' }
  /** a source control mode leaves alone (a listing's order, a timer race): fix it where the project reaches it */
  | { readonly kind: 'fix-in-code'; readonly api: string; readonly site: FrameView | null }
  /** in control mode still: the call to seed or stub, and the project's line that reaches it */
  | {
      readonly kind: 'seed-in-code';
      readonly api: string;
      readonly package: string | null;
      readonly site: FrameView | null;
    }
  /** head changed the project's own code too: the bump may not be what changed the run */
  | { readonly kind: 'own-code-changed'; readonly files: readonly string[]; readonly uncommitted: number }
  /** the runs part where nothing detdrift intercepts decides */
  | { readonly kind: 'outside' };
