import type { Rows } from './rows.js';

/** What the alignment knows of one async context. */
export interface ContextState {
  readonly ctx: number;
  /** the position of the context's last call in A, and in B; -1 when a run has none */
  lastA: number;
  lastB: number;
  /** B's calls in this context read ahead while looking for another context's */
  readonly waiting: number[];
  start: number;
  /** the position of B's last call matched in this context, -1 before any */
  matchedB: number;
  /** A's next calls in this context that a hunk found B does not make here: passed over */
  skip: number;
  /** the streams did not re-synchronize: nothing more is paired in this context */
  diverged: boolean;
}

/**
 * The contexts of both runs, and B's calls handed out context by context, in order, reading B
 * once: the calls of other contexts met on the way wait in their context's queue. When both runs
 * interleave their contexts alike, the queues stay empty.
 */
export class Contexts {
  private readonly states = new Map<number, ContextState>();
  private head = 0;
  // Consecutive calls are mostly in one context: the last state found skips the map.
  private last: ContextState | null = null;

  constructor(
    callsA: Rows,
    private readonly callsB: Rows,
  ) {
    forEachLast(callsA, (ctx, position) => (this.of(ctx).lastA = position));
    forEachLast(callsB, (ctx, position) => (this.of(ctx).lastB = position));
  }

  of(ctx: number): ContextState {
    if (this.last?.ctx === ctx) return this.last;
    let state = this.states.get(ctx);
    if (!state) {
      state = { ctx, lastA: -1, lastB: -1, waiting: [], start: 0, matchedB: -1, skip: 0, diverged: false };
      this.states.set(ctx, state);
    }
    return (this.last = state);
  }

  /** The position of B's next call in the context not handed out yet, or -1 when there is none. */
  nextB(state: ContextState): number {
    if (state.start < state.waiting.length) return state.waiting[state.start++]!;
    if (state.lastB < this.head) return -1;
    for (;;) {
      const position = this.head++;
      const ctx = this.callsB.ctx(position);
      if (ctx === state.ctx) return position;
      const other = this.states.get(ctx)!;
      if (other.start === other.waiting.length) other.waiting.length = other.start = 0;
      other.waiting.push(position);
    }
  }

  /** Hands `position`, the last one `nextB` gave for this context, back: it comes next again. */
  putBack(state: ContextState, position: number): void {
    if (state.start > 0) state.waiting[--state.start] = position;
    else state.waiting.unshift(position);
  }

  hasB(state: ContextState): boolean {
    return state.start < state.waiting.length || state.lastB >= this.head;
  }

  /** The position `nextB` would give, without handing it out. */
  peekB(state: ContextState): number {
    if (state.start < state.waiting.length) return state.waiting[state.start]!;
    if (state.lastB < this.head) return -1;
    let position = this.head;
    while (this.callsB.ctx(position) !== state.ctx) position++;
    return position;
  }
}

/** Tells `visit` each context's last position, looking at the ends of runs of one context only. */
function forEachLast(rows: Rows, visit: (ctx: number, position: number) => void): void {
  for (let position = 0; position < rows.length; position++) {
    const ctx = rows.ctx(position);
    if (position + 1 === rows.length || rows.ctx(position + 1) !== ctx) visit(ctx, position);
  }
}
