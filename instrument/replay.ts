import { API_TABLE, REPLAYABLE_FAMILIES } from '../tracer/apis.js';
import { Tag, TAG_MASK, type SiteDef } from '../tracer/format.js';
import { TraceReader, type TraceValue } from '../tracer/reader.js';
import { siteKey } from '../tracer/stack.js';
import { SafeMap } from './real.js';

interface Recorded {
  /** undefined for a digest: the recording kept only a digest of what the program got, nothing to feed */
  readonly value: TraceValue | undefined;
  /** `file:line:column` of the call site, when the recording took its stack */
  readonly site: string | null;
  /** the call's place among the replayable calls of the whole recorded run: pinned when below the limit */
  readonly rank: number;
}

/** Why replay stopped feeding: the first call that did not match the recording. */
export interface Mismatch {
  readonly api: string;
  readonly expected: string;
  readonly got: string;
}

/**
 * Feeds a recorded run's values back, call by call. A call is matched by its async context key,
 * its API and its ordinal among that context's calls of that API, and by its site when both runs
 * took the stack. The first call that does not match ends the feeding for good (the run then goes
 * on with fresh values) and is kept as the replay divergence. Calls ranked at or past `limit`
 * (bisection pins only the first k) get fresh values without ending anything.
 */
export type Fresh = 'real' | 'shift';

export class Replayer {
  readonly mode: string;
  /** past the limit: the real source's values, or the recorded ones shifted so they surely differ */
  private readonly fresh: Fresh;
  mismatch: Mismatch | null = null;
  private readonly queues = new SafeMap<string, Recorded[]>();
  private readonly taken = new SafeMap<string, number>();
  private readonly limit: number;

  constructor(file: string, limit: number, fresh: Fresh = 'real') {
    this.limit = limit;
    this.fresh = fresh;
    const reader = TraceReader.open(file);
    try {
      this.mode = reader.header.mode;
      let rank = 0;
      for (const event of reader.events()) {
        if (!REPLAYABLE_FAMILIES.has(event.family)) continue;
        const key = `${reader.contexts.get(event.ctx)?.key ?? 'root'}\u0000${event.api} ${event.form}`;
        let queue = this.queues.get(key);
        if (!queue) this.queues.set(key, (queue = []));
        // A digest (a UUID or bytes, in a trace made without DETDRIFT_HOLD=bytes) is no value the
        // program could be given: the call keeps its place and gets a fresh value.
        const value = (event.tag & TAG_MASK) === Tag.digest ? undefined : event.value;
        queue.push({ value, site: siteKey(reader.sites.get(event.site)), rank: rank++ });
      }
    } finally {
      reader.close();
    }
  }

  /**
   * The recorded value for this call, or undefined for a fresh one. `site` is this call's site
   * key, null when its stack was not taken (then only the API and ordinal are checked).
   */
  take(apiId: number, context: string, site: string | null): TraceValue | undefined {
    if (this.mismatch) return undefined;
    const spec = API_TABLE[apiId]!;
    const key = `${context}\u0000${spec.api} ${spec.form}`;
    const ordinal = this.taken.get(key) ?? 0;
    this.taken.set(key, ordinal + 1);
    const recorded = this.queues.get(key)?.[ordinal];
    if (!recorded) {
      this.mismatch = { api: spec.api, expected: 'no such call in the recording', got: site ?? '(stack not taken)' };
      return undefined;
    }
    if (site !== null && recorded.site !== null && site !== recorded.site) {
      this.mismatch = { api: spec.api, expected: recorded.site, got: site };
      return undefined;
    }
    if (recorded.rank < this.limit || recorded.value === undefined) return recorded.value;
    return this.fresh === 'shift' ? shift(recorded.value) : undefined;
  }

  /** The key `take` matches a site of this run by; a method so the recorder need not load this module. */
  siteKey(def: SiteDef): string | null {
    return siteKey(def);
  }
}

/**
 * A value that surely differs from the recorded one, so an unpinned value cannot reproduce the
 * recording by chance (a fresh Math.random lands on the same side of a threshold half the time):
 * a draw moves half the unit interval, a clock a long way, bytes flip. Undefined: use a real one.
 */
function shift(value: TraceValue): TraceValue | undefined {
  if (typeof value === 'number') return value >= 0 && value < 1 ? (value + 0.5) % 1 : value + 1e6;
  if (typeof value === 'bigint') return value + 1_000_000_000_000n;
  if (value instanceof Uint8Array) return value.map((byte) => byte ^ 0xff);
  if (Array.isArray(value) && typeof value[0] === 'number') return [(value[0] as number) + 1000, value[1] as number];
  return undefined;
}
