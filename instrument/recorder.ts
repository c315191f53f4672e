import { Api } from '../tracer/apis.js';
import { digestBytes, digestString } from '../tracer/digest.js';
import type { Mode, SiteDef } from '../tracer/format.js';
import { Control, CONTROL_SHIFT, Tag } from '../tracer/format.js';

/** Tag flags: the value came from control mode, or from the program's own replacement. */
export const CONTROLLED = Control.detdrift << CONTROL_SHIFT;
export const PROGRAM = Control.program << CONTROL_SHIFT;
export const REPLAYED = Control.replay << CONTROL_SHIFT;
import { normalizeStack, stackKey, type RawFrame, type StackContext } from '../tracer/stack.js';
import type { TraceWriter } from '../tracer/writer.js';
import { ContextTracker } from './context.js';
import type { Controller } from './control.js';
import { siteKey, type Mismatch, type Replayer } from './replay.js';
import type { TraceValue } from '../tracer/reader.js';
import { wrap, type Native } from './patch.js';
import { captureFrames, real } from './real.js';

export interface SitePolicy {
  /** every call of an API up to this count gets its stack taken */
  readonly first: number;
  /** after that, one call in `every` (counted per API, so two runs sample the same calls) */
  readonly every: number;
}

/** Frames V8 collects per capture: detdrift's own and node's internal ones come first. */
const CAPTURE_LIMIT = 32;

const encoder = new TextEncoder();


/**
 * The one object every family records through. Taking a stack costs microseconds, so `site()`
 * takes one for the first calls of each API and a deterministic sample after that (DESIGN.md, The
 * trace); a recorded event costs a few column writes. Any failure inside stops recording, is
 * reported once on stderr, and never reaches the program.
 */
export interface RecorderSources {
  readonly controller?: Controller | null;
  readonly replayer?: Replayer | null;
  readonly hold?: boolean;
}

export class Recorder {
  /** false once recording stopped; wrappers then pass straight through */
  on = true;
  readonly mode: Mode;
  /** control mode's seeded streams and virtual clock; null in observe mode */
  readonly controller: Controller | null;
  /** replay mode's recorded values; null otherwise */
  readonly replayer: Replayer | null;
  /** keep raw values replay needs (crypto bytes, UUIDs) instead of digests */
  readonly hold: boolean;
  private readonly writer: TraceWriter;
  private readonly stack: StackContext;
  private readonly policy: SitePolicy;
  private readonly contexts: ContextTracker;
  private readonly calls = new Uint32Array(256);
  private readonly siteIds = new Map<string, number>();
  /** replay mode only: a site id's `file:line:column`, to match calls against the recording */
  private readonly siteKeys = new Map<number, string | null>();
  private lastSite = 0;
  private ended = false;
  private exitCode = 0;

  constructor(writer: TraceWriter, mode: Mode, stack: StackContext, policy: SitePolicy, sources: RecorderSources = {}) {
    this.writer = writer;
    this.mode = mode;
    this.controller = sources.controller ?? null;
    this.replayer = sources.replayer ?? null;
    this.hold = sources.hold ?? false;
    this.stack = stack;
    this.policy = policy;
    this.contexts = new ContextTracker((id, def) => writer.defineContext(id, def));
    this.contexts.enable();
  }

  /**
   * In replay mode, the recorded value for this call of `api` (taken at `site`), or undefined for a
   * fresh value. The first call that does not match the recording is written as a `replay`
   * mismatch event, and nothing is fed after it.
   */
  replay(api: number, site: number): TraceValue | undefined {
    const replayer = this.replayer;
    if (replayer === null || replayer.mismatch) return undefined;
    const value = replayer.take(api, this.contexts.currentKey(), this.siteKeys.get(site) ?? null);
    const mismatch = replayer.mismatch as Mismatch | null;
    if (mismatch && this.on) {
      this.string(Api.replayMismatch, site, `${mismatch.api}: the recording has ${mismatch.expected}, this run called it at ${mismatch.got}`);
    }
    return value;
  }

  /** The call site id for this call of `api`, or 0 when this call is not sampled. */
  site(api: number): number {
    if (!this.on) return 0;
    const count = this.calls[api]!++;
    if (count >= this.policy.first && count % this.policy.every !== 0) return 0;
    return this.capture();
  }

  /**
   * The recording methods. `tag` (or `flags`) may carry who decided the value:
   * `CONTROLLED` (control mode) or `PROGRAM` (the program's own replacement of the source).
   */
  number(api: number, tag: number, site: number, value: number): void {
    if (this.on && this.writer.number(api, tag, site, this.contexts.current(), value)) this.flush();
  }

  digest(api: number, site: number, value: ArrayBufferView | string, flags = 0): void {
    if (!this.on) return;
    const { high, low } = typeof value === 'string' ? digestString(value) : digestBytes(value);
    if (this.writer.digest(api, site, this.contexts.current(), high, low, flags)) this.flush();
  }

  bigint(api: number, site: number, value: bigint, flags = 0): void {
    if (this.on && this.writer.bigint(api, site, this.contexts.current(), value, flags)) this.flush();
  }

  string(api: number, site: number, value: string, flags = 0): void {
    if (this.on && this.writer.object(api, Tag.string | flags, site, this.contexts.current(), value)) this.flush();
  }

  list(api: number, site: number, value: readonly string[], flags = 0): void {
    if (this.on && this.writer.object(api, Tag.list | flags, site, this.contexts.current(), value)) this.flush();
  }

  /** Raw bytes, only when `hold` asks for them (replay needs them; they can be secrets). */
  bytes(api: number, site: number, value: ArrayBufferView, flags = 0): void {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (this.on && this.writer.bytes(api, site, this.contexts.current(), bytes, flags)) this.flush();
  }

  /** An output: the bytes' digest and length, and a head (the text's start, or a file's path). */
  chunk(api: number, site: number, bytes: ArrayBufferView | string, head: string): void {
    if (!this.on) return;
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
    try {
      const frames = captureFrames(CAPTURE_LIMIT);
      return frames ? this.intern(frames) : 0;
    } catch (error) {
      this.fail('ERR_DETDRIFT_STACK', error); // a frozen Error, a throwing getter: stop, never throw
      return 0;
    }
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
    if (this.replayer) this.siteKeys.set(id, siteKey(def));
    this.writer.defineSite(id, def);
    return id;
  }
}

/**
 * The Proxy handler for a source whose value is a number: the value the program gets is the
 * recorded one in replay, `substitute()` in control mode, else what the native returns. Whichever
 * it is, the program gets exactly what is recorded.
 */
export function numberSource(recorder: Recorder, api: number, tag: number, substitute?: () => number): ProxyHandler<Native> {
  const flags = substitute ? CONTROLLED : 0;
  return {
    apply(target, thisArg, args) {
      const site = recorder.site(api);
      const fed = recorder.replayer ? recorder.replay(api, site) : undefined;
      if (typeof fed === 'number') {
        recorder.number(api, tag | REPLAYED, site, fed);
        return fed;
      }
      const value = substitute ? substitute() : (real.apply(target, thisArg, args) as number);
      recorder.number(api, tag | flags, site, value);
      return value;
    },
  };
}

/**
 * Wraps a function the program installed in place of a source (a seeded `Math.random`, a fake
 * `Date.now`): calls through it are recorded, marked as decided by the program.
 */
export function recordProgramStub(recorder: Recorder, api: number, tag: number): (assigned: Native) => Native {
  return (assigned) =>
    wrap(assigned, {
      apply(target, thisArg, args) {
        const value = real.apply(target, thisArg, args);
        if (typeof value === 'number') recorder.number(api, tag | PROGRAM, recorder.site(api), value);
        return value;
      },
    });
}
