/**
 * The report: one object, several renderers. Its JSON form is a stable contract, versioned by
 * `schema`; add fields, never change the meaning of one.
 */

export const REPORT_SCHEMA = 'detdrift.report/1';

export interface FrameView {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly fn: string | null;
  readonly package: string | null;
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
  /** the lines around it, `[lineNumber, text]` */
  readonly lines: ReadonlyArray<readonly [number, string]>;
}

export interface BumpView {
  readonly name: string;
  readonly from: string | null;
  readonly to: string | null;
  readonly kind: string;
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
  readonly tried: ReadonlyArray<{ readonly dimension: string; readonly detail: string; readonly verdict: 'agree' | 'diverge' }>;
}

export interface CountView {
  readonly key: string;
  readonly a: number;
  readonly b: number;
}

export interface Report {
  readonly schema: typeof REPORT_SCHEMA;
  readonly verdict: 'agree' | 'diverge';
  readonly runs: { readonly a: RunView | null; readonly b: RunView | null };
  readonly firstDivergence: DivergenceView | null;
  readonly outputDivergence: DivergenceView | null;
  readonly cause: CauseView | null;
  readonly ordering: { readonly index: number; readonly contexts: readonly [string, string] } | null;
  /** replay's verdict on the cause; null when it was not run (--no-confirm, a bump, no command) */
  readonly confirmation: ConfirmationView | null;
  /** when the cause is outside the hook: the I/O, timer and fs calls of run A nearest the first output divergence */
  readonly nearby: readonly EventView[];
  /** one command that replays run A locally */
  readonly replay: string | null;
  /** `detdrift bump`: what the dependency bump changed; null for other commands */
  readonly bump: BumpSectionView | null;
  /** `detdrift check --perturb`: run A is the perturbed run, run B the plain one; null (or absent) otherwise */
  readonly perturbation?: PerturbationView | null;
  readonly differences: {
    readonly processes: ReadonlyArray<{ readonly process: string; readonly verdict: 'agree' | 'diverge'; readonly inA: boolean; readonly inB: boolean }>;
    readonly perApi: readonly CountView[];
    readonly perSite: readonly CountView[];
    /** matched calls whose values differ and that nothing controls (expected in observe mode), up to the first divergence */
    readonly uncontrolledValues: number;
  };
}
