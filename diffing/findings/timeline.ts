/**
 * The report's timeline: the diverging process's two call streams, aligned in a bounded window
 * around the first divergence. Only the window is aligned and kept, so a trace of a million calls
 * costs the report a few hundred steps; what lies before and after it is counted.
 */
import { diffArrays } from 'diff';
import { callMatcher } from '../align.js';
import type { ProcessComparison } from '../compare.js';
import { noRows, type Row, type Rows } from '../load.js';
import { shouldAgree } from '../localize.js';
import { describeValue } from '../../report/text.js';
import type { EventView, TimelineCall, TimelineOp, TimelineView } from '../../report/types.js';

/** Calls of each run kept before the first divergence: enough to see how the runs got there. */
const BEFORE = 100;
/** Calls of each run kept from the first divergence on: where the runs go once they part. */
const AFTER = 150;
/** A value's text in a lane: a trace string or a directory listing may be any length. */
const VALUE_WIDTH = 80;

/** Shows a row as the report does (its site, its value); `side` names the run it belongs to. */
export type ViewRow = (row: Row, side: 'a' | 'b') => EventView;

/** The timeline of a diverging process; null when its runs agree. */
export function buildTimeline(process: ProcessComparison, view: ViewRow): TimelineView | null {
  const first = process.first;
  if (!first) return null;
  const callsA = process.a?.calls ?? noRows();
  const callsB = process.b?.calls ?? noRows();
  const startA = Math.max(0, first.indexA - BEFORE);
  const startB = Math.max(0, first.indexB - BEFORE);
  const windowA = positions(startA, Math.min(callsA.length, first.indexA + AFTER));
  const windowB = positions(startB, Math.min(callsB.length, first.indexB + AFTER));
  const aligned = alignWindow({ rows: callsA, window: windowA }, { rows: callsB, window: windowB }, view);
  const found = aligned.findIndex(
    (op) => (op.a !== null && op.a.index >= first.indexA) || (op.b !== null && op.b.index >= first.indexB),
  );
  const at = found < 0 ? aligned.length : found;
  const cut = startA + windowA.length < callsA.length && startB + windowB.length < callsB.length;
  const ops = cut ? withoutRaggedEnd(aligned, at) : aligned;
  const shown = (side: 'a' | 'b') => ops.filter((op) => op[side] !== null).length;
  return {
    process: process.lineage,
    before: { a: startA, b: startB },
    ops,
    at,
    after: { a: callsA.length - startA - shown('a'), b: callsB.length - startB - shown('b') },
  };
}

/**
 * Two windows of equal length, once the runs have parted by a call or two, end out of step: their
 * last calls find their partners past the window's end. When the runs re-synchronized after the
 * first divergence, the unmatched steps after the last matched one are left to the count of later calls.
 */
function withoutRaggedEnd(ops: TimelineOp[], at: number): TimelineOp[] {
  const last = ops.findLastIndex((op) => op.kind === 'equal' || op.kind === 'changed');
  return last > at ? ops.slice(0, last + 1) : ops;
}

/** A run's calls and the positions of the window shown. */
interface Lane {
  readonly rows: Rows;
  readonly window: number[];
}

function positions(start: number, end: number): number[] {
  return Array.from({ length: Math.max(0, end - start) }, (_position, offset) => start + offset);
}

/**
 * The two windows as one sequence of steps. jsdiff finds the fewest insertions and removals with
 * diffing/'s own notion of the same call; a window is small, so it never needs to give up.
 */
function alignWindow(a: Lane, b: Lane, view: ViewRow): TimelineOp[] {
  const sameCall = callMatcher(a.rows, b.rows);
  const ops: TimelineOp[] = [];
  let atA = 0;
  let atB = 0;
  for (const change of diffArrays(a.window, b.window, {
    comparator: (i: number, j: number) => sameCall(a.rows.kind(i), b.rows.kind(j)),
  })) {
    for (let n = 0; n < change.count; n++) {
      if (change.removed) ops.push({ kind: 'removed', a: call(a.rows.at(a.window[atA++]!)!, 'a', view), b: null });
      else if (change.added) ops.push({ kind: 'inserted', a: null, b: call(b.rows.at(b.window[atB++]!)!, 'b', view) });
      else ops.push(pair(a, a.window[atA++]!, b, b.window[atB++]!, view));
    }
  }
  return ops;
}

/** The same call in both runs: `changed` only when its value should agree (a clock read in observe mode may differ). */
function pair(a: Lane, i: number, b: Lane, j: number, view: ViewRow): TimelineOp {
  const kind = !a.rows.sameValue(i, b.rows, j) && shouldAgree(a.rows.kind(i)) ? 'changed' : 'equal';
  return { kind, a: call(a.rows.at(i)!, 'a', view), b: call(b.rows.at(j)!, 'b', view) };
}

function call(row: Row, side: 'a' | 'b', view: ViewRow): TimelineCall {
  const event = view(row, side);
  return {
    index: event.index,
    api: event.api,
    family: row.event.family,
    site: event.site,
    value: describeValue(event.value, VALUE_WIDTH),
  };
}
