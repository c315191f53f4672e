import { Tag, type TraceHeader } from './format.js';
import { CLOCK_STEP_NS, Stream, VIRTUAL_EPOCH_MS, wallMs } from './generator.js';
import { ObjectHasOwn, Uint8Array } from './primordials.js';

/** How control mode decides an API's value (instrument/clock.ts and random.ts draw the same way). */
// biome-ignore lint/suspicious/noConstEnum: inlined into the hook's hot path; the enum never leaves this module
const enum Rule {
  none,
  random,
  wallClock,
  performanceNow,
  timeOrigin,
  uptime,
  hrtime,
  hrtimeBigint,
  /**
   * Date(): a string in the local time zone, which the reader's machine may not share; the read still moves
   * the clock
   */
  clockOnly,
}

/** Each derivable api, with its rule and the value tag its value is stored under. */
const RULES: Readonly<Record<string, readonly [Rule, number]>> = {
  'Math.random': [Rule.random, Tag.f64],
  'Date.now': [Rule.wallClock, Tag.f64],
  'new Date': [Rule.wallClock, Tag.f64],
  'Date()': [Rule.clockOnly, Tag.string],
  'Intl.DateTimeFormat': [Rule.wallClock, Tag.f64],
  'performance.now': [Rule.performanceNow, Tag.f64],
  'performance.timeOrigin': [Rule.timeOrigin, Tag.f64],
  'process.uptime': [Rule.uptime, Tag.f64],
  'process.hrtime': [Rule.hrtime, Tag.hrtime],
  'process.hrtime.bigint': [Rule.hrtimeBigint, Tag.bigint],
};

/**
 * The values control mode decided, drawn again in trace order from the header's seed: the writer
 * leaves out a value that equals what this gives (format.ts, DERIVED), and the reader puts it back.
 * Both call `next` for every controlled event, stored or left out, so they stay in step whatever
 * the hook drew without recording (a draw while recording was paused just turns the values after
 * it explicit: the writer only leaves out what it has checked).
 */
export class Derivation {
  private readonly rules: Uint8Array;
  private readonly tags: Uint8Array;
  private readonly random: Stream;
  private nanoseconds = 0;

  /**
   * From a trace's header: the generators at the start of the run. From a derivation: an independent copy at
   * its position.
   */
  constructor(source: Pick<TraceHeader, 'seed' | 'apis'> | Derivation) {
    if (source instanceof Derivation) {
      this.rules = source.rules;
      this.tags = source.tags;
      this.random = source.random.copy();
      this.nanoseconds = source.nanoseconds;
      return;
    }
    // With the saved built-ins: the trace writer makes its derivation at the first controlled
    // event, in the program's time, where the program may have replaced the global ones.
    const apis = source.apis;
    this.rules = new Uint8Array(apis.length);
    this.tags = new Uint8Array(apis.length);
    for (let i = 0; i < apis.length; i++) {
      const api = apis[i]!.api;
      const rule = ObjectHasOwn(RULES, api) ? RULES[api]! : ([Rule.none, Tag.none] as const);
      this.rules[i] = rule[0]; // indexed: a destructuring would iterate, through the program's Array.prototype
      this.tags[i] = rule[1];
    }
    // The hook seeds a run without DETDRIFT_SEED with '0' (instrument/runtime.ts).
    this.random = new Stream(source.seed ?? '0', 'Math.random');
  }

  /** Where a chunk read again on its own starts (reader.ts, ChunkStart). */
  copy(): Derivation {
    return new Derivation(this);
  }

  /**
   * The value the next controlled event of `api` got from control mode (process.hrtime.bigint's as
   * a number, exact below 2^53 ns), moving the generators on as the hook did; NaN when it does not
   * follow from the seed alone. A number, never a union: the writer calls this for every
   * controlled event, and a boxed result would cost an allocation each.
   */
  next(api: number, tag: number): number {
    const value = this.draw(this.rules[api] as Rule);
    return tag === this.tags[api] ? value : NaN;
  }

  private draw(rule: Rule): number {
    switch (rule) {
      case Rule.none:
        return NaN;
      case Rule.random:
        return this.random.double();
      case Rule.wallClock:
        return wallMs(this.tick());
      case Rule.performanceNow:
        return this.tick() / 1e6;
      case Rule.timeOrigin:
        return VIRTUAL_EPOCH_MS;
      case Rule.uptime:
        return this.tick() / 1e9;
      case Rule.hrtime:
      case Rule.hrtimeBigint:
        return this.tick();
      case Rule.clockOnly:
        this.tick();
        return NaN;
    }
  }

  private tick(): number {
    this.nanoseconds += CLOCK_STEP_NS;
    return this.nanoseconds;
  }
}
