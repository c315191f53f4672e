import { CLOCK_STEP_NS, Stream, wallMs } from '../tracer/generator.js';
import { SafeMap } from '../tracer/primordials.js';

// The generators live in tracer/ so a trace reader can run them again; the hook's files take them from here.
export { Stream, VIRTUAL_EPOCH_MS } from '../tracer/generator.js';

/** What a family draws from: a Stream, or the stream of the scope the caller runs in. */
export type Draws = Pick<Stream, 'next' | 'double' | 'fill' | 'int' | 'uuid'>;

/**
 * One set of generators and one virtual clock: the whole run's, or one test's (tests.ts). A test's
 * streams are seeded by the seed, its name (file and full name) and the API, and its clock starts
 * at the virtual epoch, so what a test draws depends on nothing that ran before it.
 */
export class Scope {
  private readonly streams = new SafeMap<string, Stream>();
  /** the virtual clock: nanoseconds since the virtual start */
  nanoseconds = 0;

  constructor(
    private readonly seed: string,
    /** '' for the run's own scope, whose streams are named by their API alone */
    readonly name: string,
  ) {}

  stream(api: string): Stream {
    let stream = this.streams.get(api);
    if (stream === undefined) {
      stream = new Stream(this.seed, this.name === '' ? api : `${this.name}\u0000${api}`);
      this.streams.set(api, stream);
    }
    return stream;
  }
}

/**
 * Control mode's sources: one generator stream per API (a new draw from `Math.random` does not
 * shift `crypto.randomUUID`), and one virtual clock for every clock API. The clock starts at
 * VIRTUAL_EPOCH_MS and moves CLOCK_STEP_NS at every read. `reach` can move it to a timer's due
 * time, but no timer calls it yet: a timer that fires leaves the clock where reads put it. A trace
 * leaves out what this draws (tracer/derive.ts draws it again, one step per read): a value that
 * differs from that (a jump, a read from another scope) is written out in full.
 *
 * Under a test runner each test has a Scope of its own: a call draws from the scope of the async
 * context it runs in (`scopeOf`, the context tracker's), and the run's scope takes the rest (the
 * runner's own calls, module loads). Until the first test begins, nothing is looked up.
 */
export class Controller {
  readonly seed: string;
  private readonly own: Scope;
  private scopeOf: (() => object | null) | null = null;

  constructor(seed: string) {
    this.seed = seed;
    this.own = new Scope(seed, '');
  }

  /** A fresh scope for the test named `name`: its streams and clock start anew. */
  scope(name: string): Scope {
    return new Scope(this.seed, name);
  }

  /**
   * From now on each call draws from the scope its context is in (ContextTracker.scope); a clock
   * read the runner's own code makes there (`byRunner`: its progress throttles, its timings) reads
   * the run's clock, so how often the runner looks at the time cannot move a test's.
   */
  scoped(scopeOf: () => object | null, byRunner: () => boolean = () => false): void {
    this.scopeOf = scopeOf;
    this.byRunner = byRunner;
  }

  private byRunner: () => boolean = () => false;

  /** The scope whose clock a read moves: the caller's, unless the runner's own code reads it inside a test. */
  private clock(): Scope {
    const scope = this.current();
    return scope !== this.own && this.byRunner() ? this.own : scope;
  }

  /** The stream of `api`: the run's, or, once tests begin, the one of the scope the caller runs in. */
  stream(api: string): Draws {
    return new ScopedDraws(this, api, this.own.stream(api));
  }

  /** Whether calls draw from their context's scope: once a test began. */
  get scoping(): boolean {
    return this.scopeOf !== null;
  }

  /** The scope the caller draws from. The tracker holds only Scopes (tests.ts), or null. */
  current(): Scope {
    if (this.outside > 0) return this.own;
    return (this.scopeOf?.() as Scope | null | undefined) ?? this.own;
  }

  /**
   * Above 0 while the runner's own work runs inside a test's context (tests.ts `outside`: Vitest's
   * RPC, whose message ids are random draws): it draws from the run's scope.
   */
  outside = 0;

  /** Reads the virtual clock (nanoseconds since the virtual start) and advances it. */
  tick(): number {
    const scope = this.clock();
    scope.nanoseconds += CLOCK_STEP_NS;
    return scope.nanoseconds;
  }

  /** The virtual time without advancing it, for scheduling. */
  peek(): number {
    return this.clock().nanoseconds;
  }

  /** A timer due at `dueNs` fired: the clock never runs behind it. */
  reach(dueNs: number): void {
    const scope = this.clock();
    if (dueNs > scope.nanoseconds) scope.nanoseconds = dueNs;
  }

  /** The virtual wall clock in milliseconds, as Date.now gives. */
  static wallMs(nanoseconds: number): number {
    return wallMs(nanoseconds);
  }
}

/** An API's stream in whichever scope the caller runs in; the run's own, looked up once, until tests begin. */
class ScopedDraws implements Draws {
  constructor(
    private readonly controller: Controller,
    private readonly api: string,
    private readonly own: Stream,
  ) {}

  private get stream(): Stream {
    return this.controller.scoping ? this.controller.current().stream(this.api) : this.own;
  }

  next(): number {
    return this.stream.next();
  }

  double(): number {
    return this.stream.double();
  }

  fill(bytes: Uint8Array): void {
    this.stream.fill(bytes);
  }

  int(min: number, max: number): number {
    return this.stream.int(min, max);
  }

  uuid(): string {
    return this.stream.uuid();
  }
}
