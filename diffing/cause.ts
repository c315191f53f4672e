import type { Dimension } from '../instrument/perturb-dimensions.js';
import type { Alignment } from './align.js';
import type { BisectResult } from './bisect.js';
import type { ProcessComparison } from './compare.js';
import type { Divergence } from './localize.js';
import { REPLAYABLE_FAMILIES, UNPINNED_APIS } from '../tracer/apis.js';
import { Control, type ApiRow } from '../tracer/format.js';
import type { LoadedTrace, Row } from './load.js';

export type CauseKind = 'call' | 'ordering' | 'outside';

/** Which run the cause's row comes from. */
export type Side = 'a' | 'b';

export interface Cause {
  readonly kind: CauseKind;
  /** the call blamed (for an ordering: the first reordered call in A); null when outside */
  readonly row: Row | null;
  readonly side: Side;
  /** the rule that chose it, for the report */
  readonly rule: string;
  /**
   * the process the call was found in, when not the one that diverged: a child or worker thread
   * whose value crossed into it (diffing/crossing.ts)
   */
  readonly process?: ProcessComparison;
}

/** The process a cause's call was made in: a child's when it crossed (diffing/crossing.ts), else this one. */
export function causeIn(process: ProcessComparison): ProcessComparison {
  return process.cause?.process ?? process;
}

/** The last rule: no call of the process explains its divergence (a child's may: diffing/crossing.ts). */
export const NOT_EXPLAINED = 'no intercepted call explains the divergence';

/**
 * The first uncontrolled call that explains the divergence. The rules, in order:
 *
 * 1. When the code differs (the lockfiles do: a bump):
 *    a. the old tree's run stopped making calls where the new one went on, and failed as the new
 *       one did not (a crash the bump fixed, an install that broke): the runs part at that end,
 *       which no call explains;
 *    b. else the first call B makes from the new version of a changed package (`changed`, head's
 *       `name@version` of each package the bump moved) that A does not, wherever the alignment met
 *       it: a bump that also drops calls of the old version parts the runs there first, but what it
 *       brought is the new call;
 *    c. else the first call of the first hunk the new tree adds, else the first it no longer makes,
 *       unless the runs wrote different outputs before it (a test the bump fixed or broke printing
 *       another result): then the new code, not a call, changed what the program does.
 * 2. When run A was perturbed (`check --perturb`), the last call before the divergence of a source
 *    the perturbation varies (a directory listing for `dir-order`) whose value differs: what
 *    the perturbation changed, and the way it reached the divergence.
 * 3. With the same code, the runs can only part because a value did: the last uncontrolled call
 *    before the divergence whose value differs is the cause. Clocks and entropy always differ in
 *    observe mode, so an earlier difference that the program then ignored is not blamed.
 * 4. When contexts completed in another order after that value (or there is no such value), the
 *    cause is the ordering, with the contexts named.
 * 5. Else a call only one run makes; else the divergence is outside the intercepted sources.
 *
 * Replay (`confidence: "replay-confirmed"`) can later prove or overturn the heuristic.
 */
export function findCause(
  alignment: Alignment,
  first: Divergence,
  /** the first output divergence, of the outputs the comparison keeps (a runner's own lines left out) */
  output: Divergence | null,
  codeChanged: boolean,
  a: LoadedTrace,
  b: LoadedTrace,
  changed: ReadonlySet<string> = EMPTY,
): Cause {
  const edits = alignment.structural?.edits ?? [];
  const added = edits.find((edit) => edit.kind === 'added');
  const removed = edits.find((edit) => edit.kind === 'removed');
  const ended = codeChanged ? endedEarly(alignment, a, b) : null;
  if (ended) return { kind: 'outside', row: null, side: 'a', rule: `the old dependency tree's run ${ended}` };
  const brought = codeChanged && changed.size > 0 ? firstBrought(alignment, b, changed) : null;
  if (brought) return { kind: 'call', row: brought, side: 'b', rule: NEW_CALL };
  if (codeChanged && (added || removed)) {
    const edit = added ?? removed!;
    // an output at call index i was written before call i: at a tie, the output came first
    if (output?.reason === 'output' && edit.row.index >= (added ? output.indexB : output.indexA))
      return { kind: 'outside', row: null, side: 'a', rule: OUTPUT_FIRST };
    const rule = added ? NEW_CALL : 'a call the old dependency tree makes and the new one does not';
    return { kind: 'call', row: edit.row, side: added ? 'b' : 'a', rule };
  }

  const before = first.reason === 'value' ? first.indexA + 1 : first.indexA;
  const varied = perturbedSources(a);
  const perturbed = varied && lastDifference(alignment, before, a, b, (indexA) => varied(a.calls.kind(indexA).spec));
  if (perturbed) {
    const dimensions = a.header.perturb!.map((entry) => entry.dimension).join(', ');
    return {
      kind: 'call',
      row: perturbed,
      side: 'a',
      rule: `the last call before the divergence of a source the perturbation varies (${dimensions}) whose value differs`,
    };
  }
  const valueCause = lastDifference(alignment, before, a, b, (indexA) => a.calls.kind(indexA).control === 0);
  const ordering = alignment.ordering && alignment.ordering.index < before ? alignment.ordering : null;
  if (valueCause && (!ordering || valueCause.index > ordering.a.index)) {
    return {
      kind: 'call',
      row: valueCause,
      side: 'a',
      rule: 'the last uncontrolled call before the divergence whose value differs',
    };
  }
  if (ordering) {
    return {
      kind: 'ordering',
      row: ordering.a,
      side: 'a',
      rule: 'the same calls completed in a different order across async contexts',
    };
  }
  if (added || removed) {
    const edit = added ?? removed!;
    return { kind: 'call', row: edit.row, side: added ? 'b' : 'a', rule: 'a call only one run makes' };
  }
  return { kind: 'outside', row: null, side: 'a', rule: NOT_EXPLAINED };
}

const EMPTY: ReadonlySet<string> = new Set();

/**
 * How run A ended, when it made its last call before the divergence and then failed where B did
 * not: blaming B's next call would name whatever B happens to do after the point A never passed.
 */
function endedEarly(alignment: Alignment, a: LoadedTrace, b: LoadedTrace): string | null {
  const structural = alignment.structural;
  if (!structural || structural.indexA < a.calls.length) return null;
  const code = a.ending.complete ? a.ending.exitCode : null;
  if (code === 0 || code === b.ending.exitCode) return null;
  const how = code === null ? 'stopped without finishing its exit (killed, or it crashed)' : `exited with code ${code}`;
  return `${how} after its last call, where the new one went on`;
}
const NEW_CALL = 'a call the new dependency tree makes and the old one does not';
const OUTPUT_FIRST =
  "the runs wrote different outputs before either made a call the other does not: the new tree's code, not a clock or entropy call, changed what the program does";

/**
 * B's first call made by the code of a changed package (its site's first frame: the package that
 * calls, not one its stack passes through, such as a test runner calling the project's test) that
 * no call of A matches, and whose value the program does not decide itself.
 */
function firstBrought(alignment: Alignment, b: LoadedTrace, changed: ReadonlySet<string>): Row | null {
  return alignment.firstOnlyInB((kind) => {
    const pkg = b.sites.get(kind.site)?.frames[0]?.package;
    return pkg != null && changed.has(pkg) && kind.control !== Control.program;
  });
}

/** A's last call before `before` that `counts` and whose value differs from its partner's in B. */
function lastDifference(
  { pairs }: Alignment,
  before: number,
  a: LoadedTrace,
  b: LoadedTrace,
  counts: (indexA: number) => boolean,
): Row | null {
  for (let indexA = Math.min(before, pairs.end) - 1; indexA >= 0; indexA--) {
    const indexB = pairs.partnerOfA(indexA);
    if (indexB >= 0 && counts(indexA) && !a.calls.sameValue(indexA, b.calls, indexB)) return a.calls.at(indexA)!;
  }
  return null;
}

/** The intercepted sources each perturbation varies; the others (`timezone`, `locale`, `eol`) vary none. */
const VARIES: Readonly<Partial<Record<Dimension, (spec: ApiRow) => boolean>>> = {
  'dir-order': (spec) => spec.api === 'fs.readdir' || spec.api === 'fs.opendir',
  clock: (spec) => spec.family === 'clock',
  cpus: (spec) => spec.api === 'os.cpus',
  hostname: (spec) => spec.api === 'os.hostname',
  tmpdir: (spec) => spec.api === 'os.tmpdir',
};

/** Which calls of a perturbed run the perturbation reached; null for a run that was not perturbed. */
function perturbedSources(trace: LoadedTrace): ((spec: ApiRow) => boolean) | null {
  const tests = (trace.header.perturb ?? [])
    .map((entry) => VARIES[entry.dimension as Dimension])
    .filter((test) => test !== undefined);
  return tests.length === 0 ? null : (spec) => tests.some((test) => test(spec));
}

/**
 * The cause replay decided, when it did; else the heuristic one. Replay bisects over the values of
 * the process the heuristic cause is in (a child's, when it crossed), every other process pinned.
 */
export function confirmedCause(
  process: ProcessComparison,
  confirmation: BisectResult | null | undefined,
): { cause: Cause | null; confirmed: boolean } {
  const crossed = process.cause?.process;
  const bisected = crossed ?? process;
  if (confirmation?.status === 'confirmed' && bisected.a && confirmation.pinned !== null) {
    const row = bisected.a.calls.replayable().at(confirmation.pinned - 1);
    if (row) {
      const of = crossed ? ` of process ${crossed.lineage}` : '';
      const rule = `replay: pinning run A's first ${confirmation.pinned} recorded values${of} reproduces it, pinning ${confirmation.pinned - 1} does not`;
      return { cause: { kind: 'call', row, side: 'a', rule, process: crossed }, confirmed: true };
    }
  }
  // Replay pins clock, random and crypto values only: a child's fs or process call it could not pin
  // stays the cause the rules chose, said to be unconfirmed and why.
  const unpinnable = crossed && process.cause!.row && !REPLAYABLE_FAMILIES.has(process.cause!.row.event.family);
  if (confirmation?.status === 'outside' && unpinnable) {
    const { api } = process.cause!.row!.event;
    const rule = `${process.cause!.rule}; not confirmed by replay, which pins clock, random and crypto values only, not ${api}'s`;
    return { cause: { ...process.cause!, rule }, confirmed: false };
  }
  if (confirmation?.status === 'outside') {
    const all = crossed ? "every process's" : `all ${confirmation.total}`;
    const rule = `replay: pinning ${all} recorded clock, random and crypto values does not reproduce run A`;
    // A key replay cannot pin stays the cause it was found to be, now that every value it can pin is cleared.
    const blamed = process.cause?.kind === 'call' && process.cause.side === 'a' ? process.cause : null;
    const api = blamed && process.a ? process.a.calls.kind(blamed.row!.index).spec.api : null;
    if (blamed && api !== null && UNPINNED_APIS.has(api))
      return {
        cause: { ...blamed, rule: `${rule}; ${api}, which replay cannot pin, is ${blamed.rule}` },
        confirmed: false,
      };
    return { cause: { kind: 'outside', row: null, side: 'a', rule }, confirmed: true };
  }
  // Every other process pinned and none of the child's reproduced A: its values did not part the runs.
  if (confirmation?.status === 'not-reproduced' && crossed) {
    const rule = `${NOT_EXPLAINED}: replay reproduced run A with none of process ${crossed.lineage}'s values pinned, so they did not part the runs`;
    return { cause: { kind: 'outside', row: null, side: 'a', rule }, confirmed: false };
  }
  return { cause: process.cause, confirmed: false };
}
