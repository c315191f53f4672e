import { Tag, type TraceHeader } from './format.js';
import { CLOCK_STEP_NS, Stream, VIRTUAL_EPOCH_MS, wallMs } from './generator.js';

/** How control mode decides one API's value (instrument/clock.ts and random.ts draw the same way). */
type Rule = (derive: Derivation) => number | bigint | undefined;

const RULES: Readonly<Record<string, Rule>> = {
  'Math.random': (derive) => derive.random().double(),
  'Date.now': (derive) => wallMs(derive.tick()),
  'new Date': (derive) => wallMs(derive.tick()),
  // Date() gives a string in the local time zone, which the reader's machine may not share: the
  // read moves the clock, and the string stays in the trace.
  'Date()': (derive) => void derive.tick(),
  'performance.now': (derive) => derive.tick() / 1e6,
  'performance.timeOrigin': () => VIRTUAL_EPOCH_MS,
  'process.uptime': (derive) => derive.tick() / 1e9,
  'process.hrtime': (derive) => derive.tick(),
  'process.hrtime.bigint': (derive) => BigInt(derive.tick()),
};

/** The value tag each rule's value is stored under: a value under another tag is never derived. */
const TAGS: Readonly<Record<string, number>> = { 'process.hrtime': Tag.hrtime, 'process.hrtime.bigint': Tag.bigint, 'Date()': Tag.string };

/**
 * The values control mode decided, drawn again in trace order from the header's seed: the writer
 * leaves out a value that equals what this gives (format.ts, DERIVED), and the reader puts it back.
 * Both call `next` for every controlled event, stored or left out, so they stay in step whatever
 * the hook drew without recording (a draw while recording stopped just turns the values after it
 * explicit: the writer only leaves out what it has checked).
 */
export class Derivation {
  private readonly rules: ReadonlyArray<Rule | undefined>;
  private readonly tags: Uint8Array;
  private readonly seed: string;
  private stream: Stream | null = null;
  private nanoseconds = 0;

  constructor(header: Pick<TraceHeader, 'seed' | 'apis'>) {
    // The hook seeds a run without DETDRIFT_SEED with '0' (instrument/runtime.ts).
    this.seed = header.seed ?? '0';
    this.rules = header.apis.map((row) => (Object.hasOwn(RULES, row.api) ? RULES[row.api] : undefined));
    this.tags = Uint8Array.from(header.apis, (row) => TAGS[row.api] ?? Tag.f64);
  }

  /**
   * The value the next controlled event of `api` got from control mode, moving the generators on
   * as the hook did; undefined when it does not follow from the seed alone.
   */
  next(api: number, tag: number): number | bigint | undefined {
    const rule = this.rules[api];
    if (rule === undefined) return undefined;
    const value = rule(this);
    return tag === this.tags[api] ? value : undefined;
  }

  random(): Stream {
    return (this.stream ??= new Stream(this.seed, 'Math.random'));
  }

  tick(): number {
    this.nanoseconds += CLOCK_STEP_NS;
    return this.nanoseconds;
  }
}
