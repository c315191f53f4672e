import type { Rows } from './rows.js';
import type { SameCall, Structural } from './align.js';

/**
 * One place where a context's calls part between the runs: the calls only A made there (removed)
 * and only B made there (added), until the context's streams re-synchronize.
 */
export interface Hunk {
  readonly structural: Structural;
  /** its calls not yet made by the other run in another context; a hunk with none open is not a divergence */
  open: number;
  /** the positions of its calls in A, and in B */
  readonly removed: readonly number[];
  readonly added: readonly number[];
}

/** What align knows of each of B's calls, by position (Moves marks those it pairs). */
export const SeenB = Object.freeze({ not: 0, seen: 1, moved: 2 });

interface Waiting {
  readonly position: number;
  readonly ctx: number;
  readonly hunk: Hunk;
}

/** Calls left waiting for their match in another context, per run, before the pass gives up. */
export const MAX_WAITING = 512;

/**
 * Calls one run made in one async context and the other run made in another: the same work, done
 * by whichever callback came second (`if (++done === 2) ...`), when independent work (child
 * processes, I/O, timers due together) completes in another order. Each call a hunk leaves over
 * waits here for the same call (API and site) in another context of the other run, first come first
 * paired; one in the same context is no move, since a context runs its calls in program order.
 */
export class Moves {
  private readonly waitingA: Waiting[] = [];
  private readonly waitingB: Waiting[] = [];
  /** A's call indexes paired here */
  private readonly movedA: number[] = [];

  constructor(
    private readonly callsA: Rows,
    private readonly callsB: Rows,
    private readonly sameCall: SameCall,
    /** B's call index + 1 by A's call index, as Pairs keeps them */
    private readonly partners: Int32Array,
    /** SeenB by B's position */
    private readonly seenB: Uint8Array,
  ) {}

  /** How many of A's calls below `end` were paired across contexts. */
  movedBefore(end: number): number {
    return this.movedA.filter((index) => index < end).length;
  }

  /** True when too many calls wait: the runs do differ, and what follows is not worth pairing. */
  get full(): boolean {
    return this.waitingA.length > MAX_WAITING || this.waitingB.length > MAX_WAITING;
  }

  /** A's call at `position` is not in B's stream of its context. */
  removed(position: number, hunk: Hunk): void {
    const ctx = this.callsA.ctx(position);
    const kind = this.callsA.kind(position);
    const found = this.waitingB.findIndex((b) => b.ctx !== ctx && this.sameCall(kind, this.callsB.kind(b.position)));
    if (found < 0) return void this.wait(this.waitingA, { position, ctx, hunk });
    this.pair(position, this.take(this.waitingB, found));
  }

  /** B's call at `position` is not in A's stream of its context. */
  added(position: number, hunk: Hunk): void {
    const ctx = this.callsB.ctx(position);
    const kind = this.callsB.kind(position);
    const found = this.waitingA.findIndex((a) => a.ctx !== ctx && this.sameCall(this.callsA.kind(a.position), kind));
    if (found < 0) return void this.wait(this.waitingB, { position, ctx, hunk });
    this.pair(this.take(this.waitingA, found), position);
  }

  private wait(list: Waiting[], waiting: Waiting): void {
    list.push(waiting);
    waiting.hunk.open++;
  }

  /** Takes a waiting call out for its match: its hunk has one call fewer open. */
  private take(list: Waiting[], at: number): number {
    const [waiting] = list.splice(at, 1);
    waiting!.hunk.open--;
    return waiting!.position;
  }

  private pair(positionA: number, positionB: number): void {
    const indexA = this.callsA.index(positionA);
    const indexB = this.callsB.index(positionB);
    this.partners[indexA] = indexB + 1;
    this.movedA.push(indexA);
    this.seenB[positionB] = SeenB.moved;
  }
}
