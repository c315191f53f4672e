import { diffArrays } from 'diff';
import type { Edit, SameCall } from './align.js';
import type { Rows } from './rows.js';

/**
 * How far past a divergence jsdiff looks for the streams to re-synchronize: a short look first,
 * which finds most hunks (a call or a few) at a fraction of the cost, then a long one. The pass
 * can open thousands of hunks, and a long look over a window with many differences costs millions
 * of steps.
 */
const LOOKS = [
  { window: 64, maxEdits: 16 },
  { window: 4096, maxEdits: 512 },
] as const;

/** The first hunk of one context's two streams: its edits, and the positions of the calls it takes from each run. */
export interface FoundHunk {
  readonly edits: readonly Edit[];
  /** A's positions only A makes here, then B's: each a prefix of its run's window */
  readonly removed: readonly number[];
  readonly added: readonly number[];
  /** the streams match again after it, inside the window; when not, nothing past it can be paired */
  readonly resynced: boolean;
  /** the short look did not do: the long one was made */
  readonly long: boolean;
}

/** Where a context's streams stand: its id, and where each run's next and last calls in it are (-1: none). */
export interface HunkStart {
  readonly ctx: number;
  readonly fromA: number;
  readonly lastA: number;
  readonly fromB: number;
  readonly lastB: number;
}

/**
 * Diffs windows of the context's calls from `fromA` and `fromB` (jsdiff, bounded) and keeps the
 * first hunk: a short look, then a long one when it did not do and `long` allows.
 */
export function firstHunk(callsA: Rows, callsB: Rows, start: HunkStart, sameCall: SameCall, long: boolean): FoundHunk {
  const short = look(callsA, callsB, start, sameCall, LOOKS[0]);
  return short.resynced || !long ? short : { ...look(callsA, callsB, start, sameCall, LOOKS[1]), long: true };
}

type Look = (typeof LOOKS)[number];

function look(callsA: Rows, callsB: Rows, start: HunkStart, sameCall: SameCall, { window, maxEdits }: Look): FoundHunk {
  const a = windowOf(callsA, start.ctx, start.fromA, start.lastA, window);
  const b = windowOf(callsB, start.ctx, start.fromB, start.lastB, window);
  const comparator = (x: number, y: number) => sameCall(callsA.kind(x), callsB.kind(y));
  const changes = diffArrays(a, b, { comparator, maxEditLength: maxEdits }) ?? [];
  const edits: Edit[] = [];
  const removed: number[] = [];
  const added: number[] = [];
  let equalAfter = false;
  for (const change of changes) {
    if (!change.added && !change.removed) {
      if ((equalAfter = edits.length > 0)) break;
      continue;
    }
    for (const position of change.value) {
      if (change.added) added.push(position);
      else removed.push(position);
      const row = change.added ? callsB.at(position)! : callsA.at(position)!;
      edits.push({ kind: change.added ? 'added' : 'removed', row });
    }
  }
  if (changes.length === 0) {
    // Past maxEditLength: no re-synchronization inside the window; report the first rows.
    if (a.length > 0) edits.push({ kind: 'removed', row: callsA.at(a[0]!)! });
    if (b.length > 0) edits.push({ kind: 'added', row: callsB.at(b[0]!)! });
    return { edits, removed: [], added: [], resynced: false, long: false };
  }
  // A hunk that runs to the end of a full window may go on past it: what follows was not seen to match.
  const whole = (found: number[], last: number) => found.length < window || found[found.length - 1] === last;
  const resynced = edits.length > 0 && (equalAfter || (whole(a, start.lastA) && whole(b, start.lastB)));
  return { edits, removed, added, resynced, long: false };
}

/** Up to `size` positions of calls in `ctx`, from `from` through `last` (none when `from` is -1). */
function windowOf(rows: Rows, ctx: number, from: number, last: number, size: number): number[] {
  const window: number[] = [];
  for (let position = from; position >= 0 && position <= last && window.length < size; position++) {
    if (rows.ctx(position) === ctx) window.push(position);
  }
  return window;
}
