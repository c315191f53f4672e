import { SeenB, type Hunk } from './moves.js';
import { Pass } from './pass.js';
import type { Row, RowKind, Rows } from './rows.js';

/** Tells whether a call of run A and a call of run B are the same call, by their kinds. */
export type SameCall = (a: RowKind, b: RowKind) => boolean;

/** A call's identity across versions (diffing/identity.ts), asked of run A's or run B's kinds. */
export type Identify = (side: 'a' | 'b', kind: RowKind) => string | null;

/**
 * Two calls are the same call: same API, and the same site when both stacks were taken. A site
 * matches by its exact location; when its location is gone from the other run (a bump shifted
 * lines, or a rebuild renamed the file), by the loose key (package name, function, first project
 * frame), or by its identity across versions (package name and masked code around the call). A
 * location that both runs still have never matches another loosely: a call a bump adds beside an
 * unchanged one would pair with it, and the blame would fall on the unchanged line.
 */
export function callMatcher(callsA: Rows, callsB: Rows, identify?: Identify): SameCall {
  const keysA = new Set(callsA.kinds.map((kind) => kind.key));
  const keysB = new Set(callsB.kinds.map((kind) => kind.key));
  const identities = { a: new Map<RowKind, string | null>(), b: new Map<RowKind, string | null>() };
  const identityOf = (side: 'a' | 'b', kind: RowKind) => {
    const known = identities[side].get(kind);
    if (known !== undefined) return known;
    const found = identify!(side, kind);
    identities[side].set(kind, found);
    return found;
  };
  return (a, b) => {
    if (a.api !== b.api) return false;
    if (a.site === 0 || b.site === 0) return true;
    if (a.key === b.key) return true;
    if (keysB.has(a.key) || keysA.has(b.key)) return false;
    if (a.loose === b.loose) return true;
    if (identify === undefined) return false;
    const identity = identityOf('a', a);
    return identity !== null && identity === identityOf('b', b);
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
class Pairs {
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
  /** calls paired with the same call made in another context of the other run (Moves), before the divergence */
  readonly moved: number;
  /**
   * B's first call, in call order, of a kind `accept`s and that no call of A matches anywhere in A:
   * a call only B's code makes (a bump's new code), wherever the alignment stopped
   */
  readonly firstOnlyInB: (accept: (kind: RowKind) => boolean) => Row | null;
}

/**
 * Aligns two call streams context by context: within one async context calls happen in program
 * order, so a completion that lands earlier in one run (I/O, timers) is an ordering difference,
 * not a divergence. One pass over A pairs each call with B's next call of its context (pass.ts);
 * where a context's streams part, jsdiff finds the hunk on a window and the pass goes on after
 * it. A hunk's calls that the other run made in another context (the callback that came second did
 * the work) pair there (moves.ts): a hunk whose calls all do is no divergence.
 */
export function align(callsA: Rows, callsB: Rows, identify?: Identify): Alignment {
  const sameCall = callMatcher(callsA, callsB, identify);
  const pass = new Pass(callsA, callsB, sameCall).run();
  const { partners } = pass;
  const structural = firstOpen(pass, callsA, callsB);
  const end = structural ? Math.min(structural.indexA + 1, partners.length) : partners.length;
  partners.fill(0, end);
  // The call where its context parted was passed over, or paired after B's extra calls: as before, it is unpaired.
  if (structural?.a) partners[structural.a.index] = 0;
  const ordering = firstReordering(callsA, callsB, structural, sameCall, pass.inStep);
  const firstOnlyInB = (accept: (kind: RowKind) => boolean) => firstOnly(callsA, callsB, sameCall, accept);
  return { pairs: new Pairs(partners, end), structural, ordering, moved: pass.moves.movedBefore(end), firstOnlyInB };
}

/** B's first call of a kind `accept`s and no kind of A matches; each kind judged once. */
function firstOnly(callsA: Rows, callsB: Rows, sameCall: SameCall, accept: (kind: RowKind) => boolean): Row | null {
  const judged = new Map<RowKind, boolean>();
  for (let position = 0; position < callsB.length; position++) {
    const kind = callsB.kind(position);
    let only = judged.get(kind);
    if (only === undefined)
      judged.set(kind, (only = accept(kind) && !callsA.kinds.some((kindA) => sameCall(kindA, kind))));
    if (only) return callsB.at(position)!;
  }
  return null;
}

/** The earliest hunk with calls that found no match in another context, its edits cut to those. */
function firstOpen({ hunks, partners, seenB }: Pass, callsA: Rows, callsB: Rows): Structural | null {
  let first: Hunk | null = null;
  for (const hunk of hunks) {
    if (hunk.open === 0) continue;
    if (first === null || earliest(first.structural, hunk.structural) !== first.structural) first = hunk;
  }
  if (!first) return null;
  const openA = new Set(first.removed.map((position) => callsA.index(position)).filter((index) => !partners[index]));
  const openB = new Set(first.added.filter((position) => seenB[position] !== SeenB.moved).map((p) => callsB.index(p)));
  const { edits } = first.structural;
  const open = edits.filter((edit) => (edit.kind === 'removed' ? openA : openB).has(edit.row.index));
  return open.length > 0 && open.length < edits.length ? { ...first.structural, edits: open } : first.structural;
}

function earliest(x: Structural | null, y: Structural): Structural {
  if (x === null) return y;
  return y.indexA !== x.indexA ? (y.indexA < x.indexA ? y : x) : y.indexB < x.indexB ? y : x;
}

/** The first position where A and B make different calls, or the same in different contexts; none before `from`. */
function firstReordering(
  a: Rows,
  b: Rows,
  structural: Structural | null,
  sameCall: SameCall,
  from: number,
): Alignment['ordering'] {
  const end = Math.min(a.length, b.length, structural ? Math.min(structural.indexA, structural.indexB) : Infinity);
  for (let i = from; i < end; i++) {
    if (a.ctx(i) !== b.ctx(i) || !sameCall(a.kind(i), b.kind(i))) return { index: i, a: a.at(i)!, b: b.at(i)! };
  }
  return null;
}
