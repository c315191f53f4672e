import type { SiteSampling } from '../tracer/settings.js';

/** The sampling DETDRIFT_SITES sets, and the calls DETDRIFT_STACKS_AT asks for in this process. */
export interface SitePolicy extends SiteSampling {
  /** calls whose stack is taken whatever the sampling says: [api, ordinal among that API's calls] */
  readonly at?: ReadonlyArray<readonly [api: number, ordinal: number]>;
}

/**
 * Which calls of one realm get their stack: a `vm` context (realms.ts) samples its own calls, so
 * the first calls of each API in a test file's context are taken however many the runner made in
 * the main realm before it (Jest, Vitest's vm pools). Opaque outside the recorder.
 */
export type Sampling = SiteSchedule;

/**
 * Which call of each API is next to get its stack: the sampling stride (SitePolicy) and the
 * ordinals asked for, kept per API so the hot path compares one number. Typed arrays only, set up
 * before the program runs: nothing here calls a method the program could have replaced.
 */
export class SiteSchedule {
  /** calls of each API so far (a double: a long run passes 2^32) */
  private readonly calls = new Float64Array(256);
  /** the next call to sample or take at, whichever comes first: call 0 for every API */
  private readonly due = new Float64Array(256);
  private readonly sampleDue = new Float64Array(256);
  private readonly stride = new Float64Array(256);
  private readonly left = new Float64Array(256);
  /** the ordinals asked for, grouped by API and ascending; `asked[cursor[api] .. end[api])` are still to come */
  private readonly asked: Float64Array;
  private readonly cursor = new Uint32Array(256);
  private readonly end = new Uint32Array(256);

  constructor(private readonly policy: SitePolicy) {
    this.stride.fill(policy.every);
    this.left.fill(policy.doubling);
    const at = [...(policy.at ?? [])].sort(([apiA, a], [apiB, b]) => apiA - apiB || a - b);
    this.asked = new Float64Array(at.map(([, ordinal]) => ordinal));
    at.forEach(([api], index) => {
      if (this.end[api] === 0) this.cursor[api] = index;
      this.end[api] = index + 1;
    });
  }

  /** A schedule for a realm's own calls: the same sampling, no ordinals asked for (those count every realm's calls). */
  forRealm(): Sampling {
    return new SiteSchedule({ first: this.policy.first, every: this.policy.every, doubling: this.policy.doubling });
  }

  /** Counts a call of `api` from the hook's own realm; true when its stack is to be taken. */
  take(api: number): boolean {
    const count = this.calls[api]!++;
    if (count !== this.due[api] && count >= this.policy.first) return false;
    if (count === this.due[api]) this.advance(api, count);
    return true;
  }

  /**
   * Counts a call of `api` from another realm, whose own schedule samples it: it is counted here
   * too, since the ordinals asked for count every call of the process.
   */
  takeIn(api: number, realm: Sampling): boolean {
    const count = this.calls[api]!++;
    // advanced whatever the realm says: a due call left behind would stop this schedule for good
    const asked = count === this.due[api] && this.advance(api, count);
    return realm.take(api) || asked;
  }

  /** Moves past call `count`, which was due; true when it is one of the ordinals asked for. */
  private advance(api: number, count: number): boolean {
    if (count === this.sampleDue[api]) {
      this.sampleDue[api] += this.stride[api]!;
      if (this.policy.doubling > 0 && --this.left[api]! === 0) {
        this.stride[api] *= 2;
        this.left[api] = this.policy.doubling;
      }
    }
    let cursor = this.cursor[api]!;
    const end = this.end[api]!;
    const asked = cursor < end && this.asked[cursor] === count;
    while (cursor < end && this.asked[cursor]! <= count) cursor++;
    this.cursor[api] = cursor;
    const sample = this.sampleDue[api]!;
    this.due[api] = cursor < end && this.asked[cursor]! < sample ? this.asked[cursor]! : sample;
    return asked;
  }
}

/**
 * The first call of each API in each new async context gets its stack too, whatever the count
 * says: a test runner makes hundreds of draws (ids, temp names) before the first test, which use
 * up the first calls of the count, while each test body runs in a context of its own (Mocha's `it`,
 * Vitest's and Jest's test functions). Context ids are handed out in the order contexts first
 * record (context.ts), so a context newer than the newest seen for an API is new to it. A program
 * that draws once in each of thousands of contexts (a loop of awaits) would take a stack for every
 * one: these samples thin out as the count's do (SitePolicy: every 2nd new context after the first
 * `doubling` of them at `first`, then every 4th, ...). Asked on every call: one comparison when the
 * context is not new.
 */
export class NewContexts {
  private readonly newest = new Float64Array(256);
  /** the context of each API's last call: while it stays, the call is not a new context's (one comparison) */
  private readonly last = new Float64Array(256).fill(-1);
  private readonly thinning: SiteSchedule;

  constructor(
    policy: SitePolicy,
    private readonly contexts: { current(): number },
  ) {
    this.thinning = new SiteSchedule({ first: policy.first, every: 2, doubling: policy.doubling });
  }

  /** True when this call of `api` is its first in a context new to it, and that context's turn is sampled. */
  take(api: number): boolean {
    const context = this.contexts.current();
    if (context === this.last[api]) return false;
    this.last[api] = context;
    if (context <= this.newest[api]!) return false;
    this.newest[api] = context;
    return this.thinning.take(api);
  }
}
