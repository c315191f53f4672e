import { API_TABLE, REPLAYABLE_FAMILIES } from '../tracer/apis.js';
import { Tag, TAG_MASK, type SiteDef } from '../tracer/format.js';
import {
  ArrayIsArray,
  FunctionHasInstance,
  ObjectCreate,
  TypedArrayLength,
  Uint8Array,
} from '../tracer/primordials.js';
import { TraceReader, type TraceValue } from '../tracer/reader.js';
import { siteKey } from '../tracer/stack.js';
import { SafeMap } from './real.js';

/** What a call past the limit gets: the real source's value, or the recorded one shifted so it surely differs. */
export type Fresh = 'real' | 'shift';

/** Why replay stopped feeding: the first call that did not match the recording. */
export interface Mismatch {
  readonly api: string;
  readonly expected: string;
  readonly got: string;
}

/**
 * One async context's recorded calls of one API: a chain through the replayer's columns, in call
 * order. `next` is the call to take next, END past the last.
 */
interface Queue {
  next: number;
  /** the chain's last call while the recording is read */
  last: number;
}

const END = -1;

/**
 * A context's queues by this run's API id: no prototype, so that take() asking for an API the
 * context did not record finds nothing, not an index the program put on Array.prototype.
 */
type ByApi = { [apiId: number]: Queue | undefined };

/** What the recording holds of a call's value. */
enum Kind {
  number = 0,
  /** any other value: bytes, a bigint, hrtime's pair... */
  other = 1,
  digest = 2,
}

/** A recording's API id whose family replay does not feed. */
const NOT_REPLAYED = -2;
/** A recording's API id in a family replay feeds, which this version does not have. */
const UNKNOWN_API = -1;

/**
 * Feeds a recorded run's values back, call by call. A call is matched by its async context key,
 * its API and its ordinal among that context's calls of that API, and by its site when both runs
 * took the stack. The first call that does not match ends the feeding for good (the run then goes
 * on with fresh values) and is kept as the replay divergence. Calls ranked at or past `limit`
 * (bisection pins only the first k) get fresh values without ending anything.
 *
 * The recorded calls are kept in columns indexed by rank (a call's place among the replayable calls
 * of the whole run), typed arrays outside the GC's heap: a recording of a million draws is a few
 * arrays, not a million objects that every collection would copy again.
 */
export class Replayer {
  readonly mode: string;
  /** past the limit: the real source's values, or the recorded ones shifted so they surely differ */
  private readonly fresh: Fresh;
  mismatch: Mismatch | null = null;
  /** by context key, then by this run's API id */
  private readonly queues = new SafeMap<string, ByApi>();
  /** by rank: what the recording holds of the call's value (Kind) */
  private kinds: Uint8Array;
  /** by rank: the value of a call whose value is a number */
  private numbers: Float64Array;
  /** by rank: the value of a call whose value is not a number */
  private readonly others = new SafeMap<number, TraceValue>();
  /** by rank: the recording's site id, 0 when it took no stack */
  private sites: Int32Array;
  /** by rank: the rank of the same queue's next call, END after its last */
  private after: Int32Array;
  /**
   * the recording's site ids' `file:line:column`, null for a site with no frame, for 0 (no stack
   * taken) and for an id whose definition was lost: dense, so that take() reads no hole, which
   * would look the index up on the program's Array.prototype
   */
  private readonly siteKeys: (string | null)[] = [];
  private readonly limit: number;
  /** take()'s last context and its queues: a context makes its calls in runs */
  private lastContext: string | null = null;
  private lastQueues: ByApi | undefined;

  constructor(file: string, limit: number, fresh: Fresh = 'real') {
    this.limit = limit;
    this.fresh = fresh;
    const reader = TraceReader.open(file);
    try {
      this.mode = reader.header.mode;
      // Room for as many calls as the file could hold numbers, so that the columns seldom grow (each
      // growth copies them and touches fresh pages), up to a million: a few large held values make a
      // large file of few calls. A control-mode trace, whose values are derived, may hold more.
      const calls = Math.min(MAX_FIRST_CALLS, Math.max(MIN_CALLS, Math.ceil(reader.size / 8)));
      this.kinds = new Uint8Array(calls);
      this.numbers = new Float64Array(calls);
      this.sites = new Int32Array(calls);
      this.after = new Int32Array(calls);
      // The recording's API ids as this run numbers them, by name and form.
      const apiIds = reader.header.apis.map((row) =>
        REPLAYABLE_FAMILIES.has(row.family)
          ? API_TABLE.findIndex(({ api, form }) => api === row.api && form === row.form)
          : NOT_REPLAYED,
      );
      const contextQueues: ByApi[] = [];
      let rank = 0;
      reader.scan({
        chunk() {},
        event: ({ apiId, ctx, tag, site, value }) => {
          const api = apiIds[apiId]!;
          if (api === NOT_REPLAYED) return;
          const at = rank++;
          // a call of an API this version does not know keeps its place in the ranks, and is never taken
          if (api === UNKNOWN_API) return;
          if (at === this.after.length) this.grow();
          let byApi: ByApi | undefined = contextQueues[ctx];
          if (byApi === undefined) {
            const key = reader.contexts.get(ctx)?.key ?? 'root';
            byApi = this.queues.get(key);
            if (byApi === undefined) this.queues.set(key, (byApi = ObjectCreate(null) as ByApi));
            contextQueues[ctx] = byApi;
          }
          const queue = byApi[api];
          if (queue === undefined) byApi[api] = { next: at, last: at };
          else {
            this.after[queue.last] = at;
            queue.last = at;
          }
          this.after[at] = END;
          this.sites[at] = site;
          // a digest (a UUID or bytes, in a trace made without DETDRIFT_HOLD=bytes) is no value the
          // program could be given: the call keeps its place and gets a fresh value
          if ((tag & TAG_MASK) === Tag.digest) this.kinds[at] = Kind.digest;
          else if (typeof value === 'number') {
            this.kinds[at] = Kind.number;
            this.numbers[at] = value;
          } else {
            this.kinds[at] = Kind.other;
            this.others.set(at, value);
          }
        },
      });
      let top = 0;
      for (const id of reader.sites.keys()) top = Math.max(top, id);
      for (let id = 0; id <= top; id++) this.siteKeys[id] = siteKey(reader.sites.get(id));
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
    if (context !== this.lastContext) {
      this.lastContext = context;
      this.lastQueues = this.queues.get(context);
    }
    const queue = this.lastQueues?.[apiId];
    if (queue === undefined || queue.next === END) {
      this.mismatch = {
        api: API_TABLE[apiId]!.api,
        expected: 'no such call in the recording',
        got: site ?? '(stack not taken)',
      };
      return undefined;
    }
    const rank = queue.next;
    queue.next = this.after[rank]!;
    const siteId = this.sites[rank]!;
    const recordedSite = siteId < this.siteKeys.length ? this.siteKeys[siteId]! : null;
    if (site !== null && recordedSite !== null && site !== recordedSite) {
      this.mismatch = { api: API_TABLE[apiId]!.api, expected: recordedSite, got: site };
      return undefined;
    }
    const value = this.valueAt(rank);
    if (rank < this.limit || value === undefined) return value;
    return this.fresh === 'shift' ? shift(value) : undefined;
  }

  /** The key `take` matches a site of this run by; a method so the recorder need not load this module. */
  siteKey(def: SiteDef): string | null {
    return siteKey(def);
  }

  private valueAt(rank: number): TraceValue | undefined {
    const kind = this.kinds[rank];
    return kind === Kind.number ? this.numbers[rank] : kind === Kind.other ? this.others.get(rank) : undefined;
  }

  private grow(): void {
    const size = this.after.length * 2;
    this.kinds = grown(this.kinds, new Uint8Array(size));
    this.numbers = grown(this.numbers, new Float64Array(size));
    this.sites = grown(this.sites, new Int32Array(size));
    this.after = grown(this.after, new Int32Array(size));
  }
}

const MIN_CALLS = 1024;
/** 17 MB of columns, untouched until used */
const MAX_FIRST_CALLS = 1 << 20;

function grown<T extends Float64Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from);
  return to;
}

/**
 * A value that surely differs from the recorded one, so an unpinned value cannot reproduce the
 * recording by chance (a fresh Math.random lands on the same side of a threshold half the time):
 * a draw moves half the unit interval, a clock a long way, bytes flip. Undefined: use a real one.
 */
function shift(value: TraceValue): TraceValue | undefined {
  if (typeof value === 'number') return value >= 0 && value < 1 ? (value + 0.5) % 1 : value + 1e6;
  if (typeof value === 'bigint') return value + 1_000_000_000_000n;
  // the saved built-ins: this runs in the program's time, and its Uint8Array and Array.isArray may be its own
  if (FunctionHasInstance(Uint8Array, value)) {
    const bytes = value as Uint8Array;
    const length = TypedArrayLength(bytes);
    const flipped = new Uint8Array(length);
    for (let i = 0; i < length; i++) flipped[i] = bytes[i]! ^ 0xff;
    return flipped;
  }
  if (ArrayIsArray(value) && typeof value[0] === 'number') return [(value[0] as number) + 1000, value[1] as number];
  return undefined;
}
