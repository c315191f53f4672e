import { Api } from '../tracer/apis.js';
import { digestBytes, digestString } from '../tracer/digest.js';
import type { Mode, SiteDef } from '../tracer/format.js';
import { Tag } from '../tracer/format.js';
import { normalizeStack, stackKey, type RawFrame, type StackContext } from '../tracer/stack.js';
import type { TraceWriter } from '../tracer/writer.js';
import { ContextTracker } from './context.js';
import type { Native } from './patch.js';
import { real } from './real.js';

export interface SitePolicy {
  /** every call of an API up to this count gets its stack taken */
  readonly first: number;
  /** after that, one call in `every` (counted per API, so two runs sample the same calls) */
  readonly every: number;
}

/** Frames V8 collects per capture: detdrift's own and node's internal ones come first. */
const CAPTURE_LIMIT = 32;

const encoder = new TextEncoder();

const returnRawFrames = (_error: Error, frames: RawFrame[]): RawFrame[] => frames;

/**
 * The one object every family records through. Taking a stack costs microseconds, so `site()`
 * takes one for the first calls of each API and a deterministic sample after that (DESIGN.md, The
 * trace); a recorded event costs a few column writes. Any failure inside stops recording, is
 * reported once on stderr, and never reaches the program.
 */
export class Recorder {
  /** false once recording stopped; wrappers then pass straight through */
  on = true;
  readonly mode: Mode;
  private readonly writer: TraceWriter;
  private readonly stack: StackContext;
  private readonly policy: SitePolicy;
  private readonly contexts: ContextTracker;
  private readonly calls = new Uint32Array(256);
  private readonly siteIds = new Map<string, number>();
  private lastSite = 0;
  private ended = false;
  private exitCode = 0;

  constructor(writer: TraceWriter, mode: Mode, stack: StackContext, policy: SitePolicy) {
    this.writer = writer;
    this.mode = mode;
    this.stack = stack;
    this.policy = policy;
    this.contexts = new ContextTracker((id, def) => writer.defineContext(id, def));
    this.contexts.enable();
  }

  /** The call site id for this call of `api`, or 0 when this call is not sampled. */
  site(api: number): number {
    const count = this.calls[api]!++;
    if (count >= this.policy.first && count % this.policy.every !== 0) return 0;
    return this.capture();
  }

  number(api: number, tag: number, site: number, value: number): void {
    if (this.writer.number(api, tag, site, this.contexts.current(), value)) this.flush();
  }

  digest(api: number, site: number, value: ArrayBufferView | string): void {
    const { high, low } = typeof value === 'string' ? digestString(value) : digestBytes(value);
    if (this.writer.digest(api, site, this.contexts.current(), high, low)) this.flush();
  }

  bigint(api: number, site: number, value: bigint): void {
    if (this.writer.bigint(api, site, this.contexts.current(), value)) this.flush();
  }

  string(api: number, site: number, value: string): void {
    if (this.writer.object(api, Tag.string, site, this.contexts.current(), value)) this.flush();
  }

  list(api: number, site: number, value: readonly string[]): void {
    if (this.writer.object(api, Tag.list, site, this.contexts.current(), value)) this.flush();
  }

  /** An output: the bytes' digest and length, and a head (the text's start, or a file's path). */
  chunk(api: number, site: number, bytes: ArrayBufferView | string, head: string): void {
    const view = typeof bytes === 'string' ? encoder.encode(bytes) : bytes;
    const { high, low } = digestBytes(view);
    if (this.writer.chunk(api, site, this.contexts.current(), high, low, view.byteLength, head)) this.flush();
  }

  /** Writes what is buffered; on failure, stops recording. */
  flush(): void {
    if (!this.on) return;
    try {
      if (this.ended) this.writer.end(this.exitCode);
      else this.writer.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_WRITE', error);
    }
  }

  /** Ends the trace with the exit code; events after this (late exit listeners) still land. */
  finish(exitCode: number): void {
    if (!this.ended && this.on) this.number(Api.exit, Tag.f64, 0, exitCode);
    this.exitCode = exitCode;
    this.ended = true;
    this.flush();
  }

  /** Reports the first internal failure on stderr and stops recording; the program runs on. */
  fail(code: string, error: unknown): void {
    if (!this.on) return;
    this.on = false;
    this.contexts.disable();
    const message = error instanceof Error ? error.message : String(error);
    try {
      real.writeSync(real.stderrFd, `detdrift: ${code}: ${message} (recording stopped; the program continues)\n`);
    } catch {
      // stderr is gone too: nothing left to tell
    }
  }

  private capture(): number {
    const limit = Error.stackTraceLimit;
    const prepare = Error.prepareStackTrace;
    const holder: { stack?: RawFrame[] } = {};
    let frames: RawFrame[] | undefined;
    try {
      Error.stackTraceLimit = CAPTURE_LIMIT;
      Error.prepareStackTrace = returnRawFrames;
      real.captureStackTrace(holder);
      frames = holder.stack;
    } catch (error) {
      this.fail('ERR_DETDRIFT_STACK', error);
    } finally {
      Error.stackTraceLimit = limit;
      Error.prepareStackTrace = prepare;
    }
    if (!Array.isArray(frames)) return 0;
    return this.intern(frames);
  }

  private intern(frames: RawFrame[]): number {
    const key = stackKey(frames);
    let id = this.siteIds.get(key);
    if (id !== undefined) return id;
    let def: SiteDef;
    try {
      def = normalizeStack(frames, this.stack);
    } catch (error) {
      this.fail('ERR_DETDRIFT_STACK', error);
      return 0;
    }
    id = ++this.lastSite;
    this.siteIds.set(key, id);
    this.writer.defineSite(id, def);
    return id;
  }
}

/**
 * The Proxy handler for a native whose return value is the event's value: call through, then
 * record. The program gets exactly what the native returned.
 */
export function recordReturn(recorder: Recorder, api: number, tag: number): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      const value = real.apply(target, thisArg, args);
      if (recorder.on) recorder.number(api, tag, recorder.site(api), value);
      return value;
    },
  };
}
