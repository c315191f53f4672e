import { diffArrays } from 'diff';
import { Contexts, type ContextState } from './contexts.js';
import type { Row, RowKind, Rows } from './rows.js';

/** Tells whether a call of run A and a call of run B are the same call, by their kinds. */
export type SameCall = (a: RowKind, b: RowKind) => boolean;

/**
 * Two calls are the same call: same API, and the same site when both stacks were taken. A site
 * matches by its exact location, or by the loose key (package name, function, first project
 * frame) when its location is gone from the other run, as when a bump shifts lines. A location
 * that both runs still have never matches another loosely: a call a bump adds beside an unchanged
 * one would pair with it, and the blame would fall on the unchanged line.
 */
export function callMatcher(callsA: Rows, callsB: Rows): SameCall {
  const keysA = new Set(callsA.kinds.map((kind) => kind.key));
  const keysB = new Set(callsB.kinds.map((kind) => kind.key));
  return (a, b) => {
    if (a.api !== b.api) return false;
    if (a.site === 0 || b.site === 0) return true;
    if (a.key === b.key) return true;
    return a.loose === b.loose && !keysB.has(a.key) && !keysA.has(b.key);
  };
}

export interface Edit {
  readonly kind: 'removed' | 'added';
  readonly row: Row;
}

/** Where the two runs stop making the same calls in the same async context. */
export interface Structural {
  readonly ctx: number;
  /** the first call of A not matched in B, or null when A has no more calls in this context */
  readonly a: Row | null;
  readonly b: Row | null;
  /** A's call index at the divergence (where B's extra call would sit when A has none) */
  readonly indexA: number;
  readonly indexB: number;
  /** the first hunk of insertions and removals, until the streams re-synchronize */
  readonly edits: readonly Edit[];
}

/** Which call of B each call of A was matched with: one number per call, not an object per pair. */
export class Pairs {
  constructor(
    /** B's call index + 1 by A's call index; 0 when unmatched */
    private readonly partners: Int32Array,
    /** A's calls below this index were aligned: through the first structural divergence, none past it */
    readonly end: number,
  ) {}

  /** B's call index matched with A's call `indexA`, or -1. */
  partnerOfA(indexA: number): number {
    return indexA < this.partners.length ? this.partners[indexA]! - 1 : -1;
  }

  /** A's call index matched with B's call `indexB`, or -1: a scan, for the few rows a report shows. */
  partnerOfB(indexB: number): number {
    return this.partners.indexOf(indexB + 1);
  }
}

export interface Alignment {
  /** calls matched context by context, up to the first structural divergence */
  readonly pairs: Pairs;
  readonly structural: Structural | null;
  /** the first place where A and B run matched calls in a different order across contexts */
  readonly ordering: { readonly index: number; readonly a: Row; readonly b: Row } | null;
}

/** How far past a divergence jsdiff looks for the streams to re-synchronize. */
const WINDOW = 4096;
const MAX_EDITS = 512;

/**
 * Aligns two call streams context by context: within one async context calls happen in program
 * order, so a completion that lands earlier in one run (I/O, timers) is an ordering difference,
 * not a divergence. One pass over A in call order pairs each call with B's next call of its
 * context, and stops once past the first context that diverged: what comes after cannot be the
 * first divergence. jsdiff only runs on a window after that mismatch.
 */
export function align(callsA: Rows, callsB: Rows): Alignment {
  const sameCall = callMatcher(callsA, callsB);
  const contexts = new Contexts(callsA, callsB);
  const partners = new Int32Array(callsA.length > 0 ? callsA.index(callsA.length - 1) + 1 : 0);
  const at = (state: ContextState, positionA: number, positionB: number, indexA: number): Structural => {
    const { ctx, matchedB } = state;
    state.diverged = true;
    const indexB = positionB >= 0 ? callsB.index(positionB) : matchedB < 0 ? callsB.length : callsB.index(matchedB) + 1;
    const edits = firstHunk(callsA, windowOf(callsA, ctx, positionA), callsB, windowOf(callsB, ctx, positionB), sameCall);
    return { ctx, a: callsA.at(positionA) ?? null, b: callsB.at(positionB) ?? null, indexA, indexB, edits };
  };
  let structural: Structural | null = null;
  // Before this position, each call of A was matched with B's call at the same position: in the same order.
  let inStep = callsA.length;
  let position = 0;
  for (; position < callsA.length; position++) {
    const index = callsA.index(position);
    if (structural && index > structural.indexA) break;
    const state = contexts.of(callsA.ctx(position));
    const partner = state.diverged ? -1 : contexts.nextB(state);
    const paired = partner >= 0 && sameCall(callsA.kind(position), callsB.kind(partner));
    if (partner !== position || !paired) inStep = Math.min(inStep, position);
    if (state.diverged) continue;
    if (!paired) {
      structural = earliest(structural, at(state, position, partner, index));
      continue;
    }
    partners[index] = callsB.index(partner) + 1;
    state.matchedB = partner;
    if (position === state.lastA && contexts.hasB(state)) {
      // A's last call in this context was matched, and B goes on making calls in it.
      structural = earliest(structural, at(state, -1, contexts.peekB(state), index + 1));
    }
  }
  inStep = Math.min(inStep, position);
  if (position === callsA.length || (structural !== null && callsA.length <= structural.indexA)) {
    // A context only B ran diverges where A has no more calls (A's count of calls kept); the first such call of B counts.
    const onlyB = contexts.firstOnlyB();
    if (onlyB >= 0) structural = earliest(structural, at(contexts.of(callsB.ctx(onlyB)), -1, onlyB, callsA.length));
  }
  const end = structural ? Math.min(structural.indexA + 1, partners.length) : partners.length;
  return { pairs: new Pairs(partners, end), structural, ordering: firstReordering(callsA, callsB, structural, sameCall, inStep) };
}

/** Up to WINDOW positions of calls in `ctx`, from `from` on (none when `from` is -1). */
function windowOf(rows: Rows, ctx: number, from: number): number[] {
  const window: number[] = [];
  for (let position = from; position >= 0 && position < rows.length && window.length < WINDOW; position++) {
    if (rows.ctx(position) === ctx) window.push(position);
  }
  return window;
}

function firstHunk(callsA: Rows, a: number[], callsB: Rows, b: number[], sameCall: SameCall): Edit[] {
  const edits: Edit[] = [];
  const comparator = (x: number, y: number) => sameCall(callsA.kind(x), callsB.kind(y));
  const changes = diffArrays(a, b, { comparator, maxEditLength: MAX_EDITS }) ?? [];
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (edits.length > 0) break;
      continue;
    }
    for (const position of change.value) {
      edits.push(change.added ? { kind: 'added', row: callsB.at(position)! } : { kind: 'removed', row: callsA.at(position)! });
    }
  }
  if (changes.length === 0) {
    // Past maxEditLength: no re-synchronization inside the window; report the first rows.
    if (a.length > 0) edits.push({ kind: 'removed', row: callsA.at(a[0]!)! });
    if (b.length > 0) edits.push({ kind: 'added', row: callsB.at(b[0]!)! });
  }
  return edits;
}

function earliest(x: Structural | null, y: Structural): Structural {
  if (x === null) return y;
  return y.indexA !== x.indexA ? (y.indexA < x.indexA ? y : x) : y.indexB < x.indexB ? y : x;
}

/** The first position where A and B make different calls, or the same in different contexts; none before `from`. */
function firstReordering(a: Rows, b: Rows, structural: Structural | null, sameCall: SameCall, from: number): Alignment['ordering'] {
  const end = Math.min(a.length, b.length, structural ? Math.min(structural.indexA, structural.indexB) : Infinity);
  for (let i = from; i < end; i++) {
    if (a.ctx(i) !== b.ctx(i) || !sameCall(a.kind(i), b.kind(i))) return { index: i, a: a.at(i)!, b: b.at(i)! };
  }
  return null;
}
