/**
 * `timers/promises` `setInterval` is an async generator: the `Timeout` it runs on is made inside
 * its iterator's first `next()`, not by the call. Calls wait here, oldest first, until a repeating
 * `Timeout` of their delay is made with no scheduling call armed: the one their iterator's first
 * `next()` makes, since every other way the program has to make one is armed. Shadowing `next`
 * on the generator's prototype would tell exactly which iterator, but the program could see it
 * (an own key where Node has none).
 */

/** Node's `Timeout` delay for `after` (`1` for a missing or out-of-range one); null: Node throws. */
function delayFor(after: unknown): number | null {
  if (after === undefined) return 1;
  if (typeof after !== 'number') return null;
  return after >= 1 && after <= TIMEOUT_MAX ? after : 1;
}

const TIMEOUT_MAX = 2 ** 31 - 1;
const RealWeakRef = WeakRef;
const deref = WeakRef.prototype.deref;
const { apply } = Reflect;

interface Waiting<T> {
  /** held weakly: an iterator dropped unstarted leaves nothing behind */
  readonly iterator: WeakRef<object>;
  readonly delay: number;
  readonly scheduled: T;
}

export class WaitingIntervals<T> {
  private waiting: Waiting<T>[] = [];

  /** A call that returned `iterator` for `after` ms; nothing when Node will refuse the delay. */
  add(iterator: object, after: unknown, scheduled: T): void {
    const delay = delayFor(after);
    if (delay === null) return;
    this.prune();
    this.waiting[this.waiting.length] = { iterator: new RealWeakRef(iterator), delay, scheduled };
  }

  /** The oldest call waiting for `timer`, a repeating Timeout made with nothing armed, if any. */
  take(timer: object): T | undefined {
    const { _repeat: repeat, _idleTimeout: delay } = timer as { _repeat?: unknown; _idleTimeout?: unknown };
    if (typeof repeat !== 'number' || this.waiting.length === 0) return undefined;
    this.prune();
    const waiting = this.waiting;
    for (let i = 0; i < waiting.length; i++) {
      if (waiting[i]!.delay !== delay) continue;
      const { scheduled } = waiting[i]!;
      for (let j = i + 1; j < waiting.length; j++) waiting[j - 1] = waiting[j]!;
      waiting.length--;
      return scheduled;
    }
    return undefined;
  }

  private prune(): void {
    const waiting = this.waiting;
    let kept = 0;
    for (let i = 0; i < waiting.length; i++) {
      if (apply(deref, waiting[i]!.iterator, []) !== undefined) waiting[kept++] = waiting[i]!;
    }
    waiting.length = kept;
  }
}
