import type { SameCall } from './align.js';
import { Contexts, type ContextState } from './contexts.js';
import { firstHunk } from './hunks.js';
import { MAX_WAITING, Moves, SeenB, type Hunk } from './moves.js';
import type { Rows } from './rows.js';

/** Long looks for a re-synchronization (hunks.ts) the pass makes; past them a hunk that needs one ends it. */
const MAX_LONG_LOOKS = 64;

/**
 * One pass over A in call order that pairs each call with B's next call of its context. Where a
 * context's streams part, a hunk passes over the calls only one run makes there and the pass goes
 * on after it; the hunk's calls wait for the same call in another context (Moves). The pass stops
 * past a hunk that cannot be explained (no re-synchronization, too many calls waiting): what comes
 * after cannot be the first divergence.
 */
export class Pass {
  /** B's call index + 1 by A's call index; 0 when unmatched */
  readonly partners: Int32Array;
  /** SeenB by B's position: at the end, calls neither paired nor waiting are calls only B made */
  readonly seenB: Uint8Array;
  readonly moves: Moves;
  /** hunks with calls waiting when opened (the others were explained at once), compacted as they fill up */
  hunks: Hunk[] = [];
  /** before this position, each call of A was matched with B's call at the same position: the same order */
  inStep: number;
  private readonly contexts: Contexts;
  private unseenB: number;
  private longLooks = 0;
  /** A's call index past which the pass stops: a hunk that cannot be explained is there */
  private stopAt = Infinity;

  constructor(
    private readonly callsA: Rows,
    private readonly callsB: Rows,
    private readonly sameCall: SameCall,
  ) {
    this.partners = new Int32Array(callsA.length > 0 ? callsA.index(callsA.length - 1) + 1 : 0);
    this.seenB = new Uint8Array(callsB.length);
    this.unseenB = callsB.length;
    this.moves = new Moves(callsA, callsB, sameCall, this.partners, this.seenB);
    this.contexts = new Contexts(callsA, callsB);
    this.inStep = callsA.length;
  }

  run(): this {
    const { callsA, callsB, contexts, partners } = this;
    let position = 0;
    for (; position < callsA.length; position++) {
      const index = callsA.index(position);
      if (index > this.stopAt) break;
      const state = contexts.of(callsA.ctx(position));
      if (state.diverged || state.skip > 0) {
        this.inStep = Math.min(this.inStep, position);
        if (state.diverged) continue;
        state.skip--;
      } else {
        const partner = contexts.nextB(state);
        const paired = partner >= 0 && this.sameCall(callsA.kind(position), callsB.kind(partner));
        if (partner !== position || !paired) this.inStep = Math.min(this.inStep, position);
        if (!paired) {
          // This call comes again: the hunk passed over it, or over B's calls before its match.
          this.open(state, position, partner, index);
          position--;
          continue;
        }
        partners[index] = callsB.index(partner) + 1;
        this.see(partner);
        state.matchedB = partner;
      }
      if (position === state.lastA && state.skip === 0 && !state.diverged && contexts.hasB(state)) {
        // A's last call in this context is behind, and B goes on making calls in it.
        this.open(state, -1, contexts.peekB(state), index + 1);
      }
    }
    this.inStep = Math.min(this.inStep, position);
    if (position === callsA.length && this.unseenB > 0) this.sweepOnlyB();
    return this;
  }

  private see(position: number): void {
    this.seenB[position] = SeenB.seen;
    this.unseenB--;
  }

  /**
   * Opens a hunk in the context where A's call at `positionA` and B's at `positionB` part (-1: the
   * run has none left there). A `sweep` hunk only opens: the sweep offers B's calls itself.
   */
  private open(state: ContextState, positionA: number, positionB: number, indexA: number, sweep = false): Hunk {
    const { callsA, callsB, contexts, moves } = this;
    const { ctx, matchedB, lastA, lastB } = state;
    const start = { ctx, fromA: positionA, lastA, fromB: positionB, lastB };
    const found = firstHunk(callsA, callsB, start, this.sameCall, this.longLooks < MAX_LONG_LOOKS);
    if (found.long) this.longLooks++;
    const indexB = positionB >= 0 ? callsB.index(positionB) : matchedB < 0 ? callsB.length : callsB.index(matchedB) + 1;
    const a = callsA.at(positionA) ?? null;
    const b = callsB.at(positionB) ?? null;
    const structural = { ctx, a, b, indexA, indexB, edits: found.edits };
    const hunk: Hunk = { structural, open: 0, removed: found.removed, added: found.added };
    if (this.hunks.length > 4 * MAX_WAITING) this.hunks = this.hunks.filter((kept) => kept.open > 0);
    this.hunks.push(hunk);
    if (!found.resynced) {
      state.diverged = true;
      hunk.open++;
      this.stopAt = Math.min(this.stopAt, indexA);
      return hunk;
    }
    if (sweep) return hunk;
    state.skip = found.removed.length;
    // B's calls the hunk takes are its context's next; the one handed out goes back when it takes none.
    const handedOut = positionA >= 0 && positionB >= 0;
    if (handedOut && found.added.length === 0) contexts.putBack(state, positionB);
    for (let i = handedOut ? 1 : 0; positionA >= 0 && i < found.added.length; i++) contexts.nextB(state);
    for (const position of found.removed) moves.removed(position, hunk);
    for (const position of found.added) {
      this.see(position);
      moves.added(position, hunk);
    }
    if (moves.full) this.stopAt = Math.min(this.stopAt, indexA);
    return hunk;
  }

  /** B's calls not seen by the end of A: in contexts A never ran, or past a context's window. */
  private sweepOnlyB(): void {
    const opened = new Map<number, Hunk>();
    for (let positionB = 0; positionB < this.callsB.length && this.unseenB > 0 && !this.moves.full; positionB++) {
      if (this.seenB[positionB] !== SeenB.not) continue;
      const state = this.contexts.of(this.callsB.ctx(positionB));
      if (state.diverged) continue;
      let hunk = opened.get(state.ctx);
      if (!hunk) opened.set(state.ctx, (hunk = this.open(state, -1, positionB, this.callsA.length, true)));
      if (state.diverged) continue;
      this.see(positionB);
      this.moves.added(positionB, hunk);
    }
  }
}
