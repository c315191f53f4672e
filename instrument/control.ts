import { CLOCK_STEP_NS, Stream, wallMs } from '../tracer/generator.js';

// The generators live in tracer/ so a trace reader can run them again; the hook's files take them from here.
export { Stream, VIRTUAL_EPOCH_MS } from '../tracer/generator.js';

/**
 * Control mode's sources: one generator stream per API (a new draw from `Math.random` does not
 * shift `crypto.randomUUID`), and one virtual clock for every clock API. The clock starts at
 * VIRTUAL_EPOCH_MS, moves CLOCK_STEP_NS at every read, and jumps to a timer's due time when the
 * timer fires later than the clock has reached, so elapsed times around a timer look right.
 * A trace leaves out what this draws (tracer/derive.ts draws it again, one step per read): a jump
 * by `reach` is not drawn there, so the clock values after one are written out in full.
 */
export class Controller {
  readonly seed: string;
  private readonly streams = new Map<string, Stream>();
  private nanoseconds = 0;

  constructor(seed: string) {
    this.seed = seed;
  }

  stream(api: string): Stream {
    let stream = this.streams.get(api);
    if (!stream) this.streams.set(api, (stream = new Stream(this.seed, api)));
    return stream;
  }

  /** Reads the virtual clock (nanoseconds since the virtual start) and advances it. */
  tick(): number {
    this.nanoseconds += CLOCK_STEP_NS;
    return this.nanoseconds;
  }

  /** The virtual time without advancing it, for scheduling. */
  peek(): number {
    return this.nanoseconds;
  }

  /** A timer due at `dueNs` fired: the clock never runs behind it. */
  reach(dueNs: number): void {
    if (dueNs > this.nanoseconds) this.nanoseconds = dueNs;
  }

  /** The virtual wall clock in milliseconds, as Date.now gives. */
  static wallMs(nanoseconds: number): number {
    return wallMs(nanoseconds);
  }
}
