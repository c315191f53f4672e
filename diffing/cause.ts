import type { Alignment } from './align.js';
import type { Divergence } from './localize.js';
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
}

/**
 * The first uncontrolled call that explains the divergence. The rules, in order:
 *
 * 1. When the code differs (the lockfiles do: a bump), a call only one run makes is the cause:
 *    the first call the new tree adds, else the first it no longer makes.
 * 2. With the same code, the runs can only part because a value did: the last uncontrolled call
 *    before the divergence whose value differs is the cause. Clocks and entropy always differ in
 *    observe mode, so an earlier difference that the program then ignored is not blamed.
 * 3. When contexts completed in another order after that value (or there is no such value), the
 *    cause is the ordering, with the contexts named. A value that differs in the first call to
 *    move is blamed itself: the run moved it (a transform cache warm in one run and cold in the
 *    other moves a whole test into another context), and its value still differs.
 * 4. Else a call only one run makes; else the divergence is outside the intercepted sources.
 *
 * Replay (`confidence: "replay-confirmed"`) can later prove or overturn the heuristic.
 */
export function findCause(alignment: Alignment, first: Divergence, codeChanged: boolean, a: LoadedTrace, b: LoadedTrace): Cause {
  const edits = alignment.structural?.edits ?? [];
  const added = edits.find((edit) => edit.kind === 'added');
  const removed = edits.find((edit) => edit.kind === 'removed');
  if (codeChanged && (added || removed)) {
    const edit = added ?? removed!;
    const rule = added ? 'a call the new dependency tree makes and the old one does not' : 'a call the old dependency tree makes and the new one does not';
    return { kind: 'call', row: edit.row, side: added ? 'b' : 'a', rule };
  }

  const before = first.reason === 'value' ? first.indexA + 1 : first.indexA;
  const valueCause = lastUncontrolledDifference(alignment, before, a, b);
  const ordering = alignment.ordering && alignment.ordering.index < before ? alignment.ordering : null;
  if (valueCause && (!ordering || valueCause.index > ordering.a.index)) {
    return { kind: 'call', row: valueCause, side: 'a', rule: 'the last uncontrolled call before the divergence whose value differs' };
  }
  if (ordering) {
    return { kind: 'ordering', row: ordering.a, side: 'a', rule: 'the same calls completed in a different order across async contexts' };
  }
  if (added || removed) {
    const edit = added ?? removed!;
    return { kind: 'call', row: edit.row, side: added ? 'b' : 'a', rule: 'a call only one run makes' };
  }
  return { kind: 'outside', row: null, side: 'a', rule: 'no intercepted call explains the divergence' };
}

function lastUncontrolledDifference({ pairs }: Alignment, before: number, a: LoadedTrace, b: LoadedTrace): Row | null {
  for (let indexA = Math.min(before, pairs.end) - 1; indexA >= 0; indexA--) {
    const indexB = pairs.partnerOfA(indexA);
    if (indexB >= 0 && a.calls.kind(indexA).control === 0 && !a.calls.sameValue(indexA, b.calls, indexB)) return a.calls.at(indexA)!;
  }
  return null;
}
