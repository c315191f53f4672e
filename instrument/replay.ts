import { API_TABLE } from '../tracer/apis.js';
import type { SiteDef } from '../tracer/format.js';
import { TraceReader, type TraceValue } from '../tracer/reader.js';

/** The families whose values replay feeds back: the ones control mode covers. */
const REPLAYED_FAMILIES = new Set(['clock', 'random', 'crypto']);

interface Recorded {
  readonly value: TraceValue;
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
export class Replayer {
  readonly mode: string;
  mismatch: Mismatch | null = null;
  private readonly queues = new Map<string, Recorded[]>();
  private readonly taken = new Map<string, number>();
  private readonly limit: number;

  constructor(file: string, limit: number) {
    this.limit = limit;
    const reader = TraceReader.open(file);
    try {
      this.mode = reader.header.mode;
      let rank = 0;
      for (const event of reader.events()) {
        if (!REPLAYED_FAMILIES.has(event.family)) continue;
        const key = `${reader.contexts.get(event.ctx)?.key ?? 'root'}\u0000${event.api} ${event.form}`;
        let queue = this.queues.get(key);
        if (!queue) this.queues.set(key, (queue = []));
        queue.push({ value: event.value, site: siteKey(reader.sites.get(event.site)), rank: rank++ });
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
    return recorded.rank < this.limit ? recorded.value : undefined;
  }
}

export function siteKey(def: SiteDef | undefined): string | null {
  const frame = def?.frames[0];
  return frame ? `${frame.file}:${frame.line}:${frame.column}` : null;
}
