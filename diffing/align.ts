import { diffArrays } from 'diff';
import type { Row } from './load.js';

/** Tells whether a call of run A and a call of run B are the same call. */
export type SameCall = (a: Row, b: Row) => boolean;

/**
 * Two rows are the same call: same API, and the same site when both stacks were taken. A site
 * matches by its exact location, or by the loose key (package name, function, first project
 * frame) when its location is gone from the other run, as when a bump shifts lines. A location
 * that both runs still have never matches another loosely: a call a bump adds beside an unchanged
 * one would pair with it, and the blame would fall on the unchanged line.
 */
export function callMatcher(callsA: readonly Row[], callsB: readonly Row[]): SameCall {
  const keysA = new Set(callsA.map((row) => row.key));
  const keysB = new Set(callsB.map((row) => row.key));
  return (a, b) => {
    if (a.api !== b.api) return false;
    if (a.event.site === 0 || b.event.site === 0) return true;
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

export interface Alignment {
  /** calls matched context by context, before each context's divergence, in A's order */
  readonly pairs: ReadonlyArray<readonly [Row, Row]>;
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
 * not a divergence. The scan is linear; jsdiff only runs on a window after the first mismatch.
 */
export function align(callsA: readonly Row[], callsB: readonly Row[]): Alignment {
  const sameCall = callMatcher(callsA, callsB);
  const byCtxA = groupByContext(callsA);
  const byCtxB = groupByContext(callsB);
  const pairs: Array<readonly [Row, Row]> = [];
  let structural: Structural | null = null;
  for (const ctx of new Set([...byCtxA.keys(), ...byCtxB.keys()])) {
    const a = byCtxA.get(ctx) ?? [];
    const b = byCtxB.get(ctx) ?? [];
    let matched = 0;
    while (matched < a.length && matched < b.length && sameCall(a[matched]!, b[matched]!)) {
      pairs.push([a[matched]!, b[matched]!]);
      matched++;
    }
    if (matched === a.length && matched === b.length) continue;
    const found = divergenceAt(ctx, a, b, matched, callsA.length, callsB.length, sameCall);
    if (structural === null || earlier(found, structural)) structural = found;
  }
  pairs.sort((x, y) => x[0].index - y[0].index);
  return { pairs, structural, ordering: firstReordering(callsA, callsB, structural, sameCall) };
}

function divergenceAt(ctx: number, a: readonly Row[], b: readonly Row[], at: number, endA: number, endB: number, sameCall: SameCall): Structural {
  const rowA = a[at] ?? null;
  const rowB = b[at] ?? null;
  return {
    ctx,
    a: rowA,
    b: rowB,
    indexA: rowA?.index ?? (at > 0 ? a[at - 1]!.index + 1 : endA),
    indexB: rowB?.index ?? (at > 0 ? b[at - 1]!.index + 1 : endB),
    edits: firstHunk(a.slice(at, at + WINDOW), b.slice(at, at + WINDOW), sameCall),
  };
}

function firstHunk(a: Row[], b: Row[], sameCall: SameCall): Edit[] {
  const edits: Edit[] = [];
  const changes = diffArrays(a, b, { comparator: sameCall, maxEditLength: MAX_EDITS }) ?? [];
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if (edits.length > 0) break;
      continue;
    }
    for (const row of change.value) edits.push({ kind: change.added ? 'added' : 'removed', row });
  }
  if (changes.length === 0) {
    // Past maxEditLength: no re-synchronization inside the window; report the first rows.
    if (a[0]) edits.push({ kind: 'removed', row: a[0] });
    if (b[0]) edits.push({ kind: 'added', row: b[0] });
  }
  return edits;
}

function earlier(x: Structural, y: Structural): boolean {
  return x.indexA !== y.indexA ? x.indexA < y.indexA : x.indexB < y.indexB;
}

function groupByContext(rows: readonly Row[]): Map<number, Row[]> {
  const groups = new Map<number, Row[]>();
  for (const row of rows) {
    let group = groups.get(row.ctx);
    if (!group) groups.set(row.ctx, (group = []));
    group.push(row);
  }
  return groups;
}

function firstReordering(a: readonly Row[], b: readonly Row[], structural: Structural | null, sameCall: SameCall): Alignment['ordering'] {
  const end = Math.min(a.length, b.length, structural ? Math.min(structural.indexA, structural.indexB) : Infinity);
  for (let i = 0; i < end; i++) {
    if (a[i]!.ctx !== b[i]!.ctx || !sameCall(a[i]!, b[i]!)) return { index: i, a: a[i]!, b: b[i]! };
  }
  return null;
}
