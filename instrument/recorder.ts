import { Api } from '../tracer/apis.js';
import { digestBytes, digestLines, digestNumber, digestPrefix, type Digest } from '../tracer/digest.js';
import { Tag, type Mode, type SiteDef } from '../tracer/format.js';
import { frameFile, normalizeStack, type StackContext } from '../tracer/stack.js';
import type { TraceWriter } from '../tracer/writer.js';
import { ContextTracker } from './context.js';
import type { Controller } from './control.js';
import type { Perturber } from './perturb.js';
import type { Mismatch, Replayer } from './replay.js';
import type { TraceValue } from '../tracer/reader.js';
import {
  bytesOf,
  NumberIsInteger,
  TypedArrayLength,
  Uint8Array,
  Utf8Encode,
  Utf8EncodeInto,
} from '../tracer/primordials.js';
import type { Native } from './patch.js';
import { captureFrames, messageOf, real, SafeMap, type CallSite } from './real.js';
import { GeneratedCode } from './generated.js';
import { isRunnerPackage } from './runners/own-code.js';
import { SiteIds } from './sites.js';
import { NewContexts, SiteSchedule, type Sampling, type SitePolicy } from './schedule.js';

/** The calls of each API a test makes whose stacks are taken beside the sampling's (Recorder.testTakes). */
const TEST_STACKS = 64;

/** Frames V8 collects per capture: node's internal ones are collected too, and left out after. */
const CAPTURE_LIMIT = 32;
/** enough to pass the hook's own frames between a wrapper and the controller's clock */
const RUNNER_FRAMES = 12;

/**
 * The one object every family records through. Taking a stack costs microseconds, so `site()`
 * takes one for the first calls of each API and a deterministic sample after that (DESIGN.md, The
 * trace); a recorded event costs its bytes in the chunk being built. Any failure inside stops
 * recording, is reported once on stderr, and never reaches the program; a stack that cannot be
 * taken (a frozen `Error`) only stops the sites. While the recorder runs code that can call back
 * into a wrapper (a program's `Object.prototype.toJSON` while site definitions are serialized),
 * such calls are the tool's own: they pass through unrecorded instead of re-entering the writer.
 */
export interface RecorderSources {
  readonly controller?: Controller | null;
  /** perturb mode: what another machine would give in the dimensions it varies */
  readonly perturber?: Perturber | null;
  readonly replayer?: Replayer | null;
  readonly hold?: boolean;
  /** promises the context tracker's async hook hears of before V8's promise hooks take over (tests: faults.ts) */
  readonly promiseHooksAfter?: number | null;
}

export class Recorder {
  /** false once recording stopped; wrappers then pass straight through */
  on = true;
  readonly mode: Mode;
  /** control mode's seeded streams and virtual clock; null in observe mode */
  readonly controller: Controller | null;
  /** replay mode's recorded values; null otherwise */
  readonly replayer: Replayer | null;
  /** perturb mode's decisions (perturb.ts); null otherwise */
  readonly perturber: Perturber | null;
  /** keep raw values replay needs (crypto bytes, UUIDs) instead of digests */
  readonly hold: boolean;
  private readonly writer: TraceWriter;
  private readonly stack: StackContext;
  private readonly schedule: SiteSchedule;
  private readonly newContexts: NewContexts;
  /** the async contexts events run in; crypto.ts marks its synchronous draws on it */
  readonly contexts: ContextTracker;
  private readonly siteIds = new SiteIds();
  /** code the program compiled that a source map in memory goes with (generated.ts) */
  readonly generated = new GeneratedCode();
  private inTest = false;
  /** calls of each API in the running test that no other rule sampled */
  private readonly testCalls = new Float64Array(256);
  /** replay mode only: a site id's `file:line:column`, to match calls against the recording */
  private readonly siteKeys = new SafeMap<number, string | null>();
  private lastSite = 0;
  private ended = false;
  private exitCode = 0;
  /** after an `exit` event: the exit code as late listeners leave it (`process.exitCode = 9` in one) */
  private currentExitCode: (() => unknown) | null = null;
  /** true while the recorder runs its own work: calls that reach a wrapper then are not recorded */
  private busy = false;
  /** false once a stack could not be taken: events go on without sites */
  private stacks = true;
  /** digest()'s UTF-8 buffer, grown to the longest string seen, and its size */
  private text = new Uint8Array(64);
  private textSize = 64;
  /** digest()'s result, reused: nothing of it outlives the call */
  private readonly sum: Digest = { high: 0, low: 0 };

  constructor(writer: TraceWriter, mode: Mode, stack: StackContext, policy: SitePolicy, sources: RecorderSources = {}) {
    this.writer = writer;
    this.mode = mode;
    this.controller = sources.controller ?? null;
    this.replayer = sources.replayer ?? null;
    this.perturber = sources.perturber ?? null;
    this.hold = sources.hold ?? false;
    this.stack = stack;
    this.schedule = new SiteSchedule(policy);
    this.contexts = new ContextTracker(
      (id, high, low, type) => writer.defineContextKey(id, high, low, type),
      (error) => this.fail('ERR_DETDRIFT_CONTEXT', error),
      sources.promiseHooksAfter ?? undefined,
    );
    this.newContexts = new NewContexts(policy, this.contexts);
    this.contexts.enable();
  }

  /**
   * In replay mode, the recorded value for this call of `api` (taken at `site`), or undefined for a
   * fresh value. The first call that does not match the recording is written as a `replay`
   * mismatch event, and nothing is fed after it.
   */
  replay(api: number, site: number): TraceValue | undefined {
    // Small enough for V8 to inline into every wrapper: outside replay mode, a test and no call.
    return this.replayer === null ? undefined : this.fed(api, site, this.replayer);
  }

  private fed(api: number, site: number, replayer: Replayer): TraceValue | undefined {
    if (replayer.mismatch || this.busy) return undefined;
    try {
      const siteKey = site === 0 ? null : (this.siteKeys.get(site) ?? null);
      const value = replayer.take(api, this.contexts.currentKey(), siteKey);
      const mismatch = replayer.mismatch as Mismatch | null;
      if (mismatch && this.on) {
        this.string(
          Api.replayMismatch,
          site,
          `${mismatch.api}: the recording has ${mismatch.expected}, this run called it at ${mismatch.got}`,
        );
      }
      return value;
    } catch (error) {
      this.fail('ERR_DETDRIFT_REPLAY', error);
      return undefined;
    }
  }

  /** A schedule for a new realm: its calls are counted apart from the others' (Sampling). */
  newSampling(): Sampling {
    return this.schedule.forRealm();
  }

  /**
   * The call site id for this call of `api`, or 0 when this call is not sampled. `above` is the
   * wrapper the program called: V8 then collects no frame of the hook's own. A call the count
   * passes over is still taken when it is the API's first in a new async context (NewContexts).
   */
  site(api: number, above?: Native): number {
    if (!this.on || this.busy) return 0;
    // the new-context rule hears of every call, sampled by the count or not: it keeps its newest
    if (this.schedule.take(api)) this.newContexts.take(api);
    else if (!this.newContexts.take(api) && !this.testTakes(api)) return 0;
    return this.stacks ? this.capture(above) : 0;
  }

  /** site() for a call from another realm, which samples its own calls with `sampling` (realms.ts). */
  siteIn(api: number, above: Native | undefined, sampling: Sampling): number {
    if (!this.on || this.busy) return 0;
    if (this.schedule.takeIn(api, sampling)) this.newContexts.take(api);
    else if (!this.newContexts.take(api) && !this.testTakes(api)) return 0;
    return this.stacks ? this.capture(above) : 0;
  }

  /**
   * While a test runs (tests.ts), the first calls of each API it makes get their stacks too: the
   * process's count was used up by the runner and the tests before it, and a test's cause is found
   * among its own calls. A replay cannot take them later where the runner may run the test in
   * another worker.
   */
  private testTakes(api: number): boolean {
    return this.inTest && this.testCalls[api]!++ < TEST_STACKS;
  }

  /** A test began (true) or ended: its calls are counted afresh for testTakes. */
  testRuns(running: boolean): void {
    this.inTest = running;
    // a loop, not fill(): the program's time, where TypedArray.prototype.fill may be its own
    if (running) for (let i = 0; i < 256; i++) this.testCalls[i] = 0;
  }

  /**
   * The recording methods. `tag` (or `flags`) may carry who decided the value:
   * `CONTROLLED` (control mode) or `REPLAYED` (a recorded value fed back).
   * Each catches what goes wrong inside (ERR_DETDRIFT_RECORD): a wrapper calls them bare.
   */
  number(api: number, tag: number, site: number, value: number): void {
    if (!this.on || this.busy) return;
    try {
      if (this.writer.number(api, tag, site, this.contexts.current(), value)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  /** A digest of what the program got: text as UTF-8, a number as its double's bytes (digestNumber). */
  digest(api: number, site: number, value: ArrayBufferView | string | number, flags = 0): void {
    if (!this.on || this.busy) return;
    try {
      const { high, low } =
        typeof value === 'string'
          ? this.digestText(value)
          : typeof value === 'number'
            ? digestNumber(value, this.sum)
            : digestBytes(value, this.sum);
      if (this.writer.digest(api, site, this.contexts.current(), high, low, flags)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  bigint(api: number, site: number, value: bigint, flags = 0): void {
    if (!this.on || this.busy) return;
    try {
      if (this.writer.bigint(api, site, this.contexts.current(), value, flags)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  string(api: number, site: number, value: string, flags = 0): void {
    if (!this.on || this.busy) return;
    try {
      if (this.writer.object(api, Tag.string | flags, site, this.contexts.current(), value)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  list(api: number, site: number, value: readonly string[], flags = 0): void {
    if (!this.on || this.busy) return;
    try {
      if (this.writer.object(api, Tag.list | flags, site, this.contexts.current(), value)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  /** Raw bytes, only when `hold` asks for them (replay needs them; they can be secrets). */
  bytes(api: number, site: number, value: ArrayBufferView, flags = 0): void {
    if (!this.on || this.busy) return;
    try {
      const bytes = bytesOf(value);
      if (this.writer.bytes(api, site, this.contexts.current(), bytes, flags)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  /**
   * An output: the bytes' digest and length, and a head (the text's start, or a file's path). The
   * digest reads `\r\n` as `\n` (digestLines), so text printed with `os.EOL` compares across
   * platforms; the length counts the bytes as written.
   */
  chunk(api: number, site: number, bytes: ArrayBufferView | string, head: string): void {
    if (!this.on || this.busy) return;
    try {
      const view = typeof bytes === 'string' ? Utf8Encode(bytes) : bytesOf(bytes);
      const { high, low } = digestLines(view);
      if (this.writer.chunk(api, site, this.contexts.current(), high, low, TypedArrayLength(view), head)) this.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_RECORD', error);
    }
  }

  /**
   * The digest of `value` as UTF-8, encoded into a buffer the recorder keeps for it: the bytes
   * `digestString` digests, without a fresh ArrayBuffer, or even a view, per call (a UUID per call
   * made one, and the GC noticed).
   */
  private digestText(value: string): Digest {
    if (this.textSize < value.length * 3) {
      this.textSize = value.length * 3;
      this.text = new Uint8Array(this.textSize);
    }
    return digestPrefix(this.text, Utf8EncodeInto(value, this.text), this.sum);
  }

  /** Writes what is buffered; on failure, stops recording. */
  flush(): void {
    if (!this.on || this.busy) return;
    this.busy = true;
    try {
      if (this.ended) this.writer.end(this.endCode());
      else this.writer.flush();
    } catch (error) {
      this.fail('ERR_DETDRIFT_WRITE', error);
    } finally {
      this.busy = false;
    }
  }

  /** Ends the trace with the exit code; events after this (late exit listeners) still land. */
  finish(exitCode: number, current: (() => unknown) | null = null): void {
    if (!this.ended && this.on) this.number(Api.exit, Tag.f64, 0, exitCode);
    this.exitCode = exitCode;
    this.currentExitCode = current;
    this.ended = true;
    this.flush();
  }

  /**
   * The process exits now with `code` (`process.reallyExit`): the trace ends with it. An `exit`
   * listener that called `process.exit(7)` changed the code the trace ended with: a second exit
   * event and end record say the one the process really exits with.
   */
  exiting(code: number): void {
    if (!this.ended) this.finish(code);
    else if (code !== this.exitCode) {
      if (this.on) this.number(Api.exit, Tag.f64, 0, code);
      this.exitCode = code;
      this.currentExitCode = null;
      this.flush();
    }
  }

  /**
   * Reports the first internal failure on stderr and stops recording; the program runs on. What
   * was buffered is still written unless writing is what failed, so the trace keeps every event
   * before the failure (a readable prefix without an end record).
   */
  fail(code: string, error: unknown): void {
    if (!this.on) return;
    this.halt();
    report(code, error, 'recording stopped; the program continues');
    if (code === 'ERR_DETDRIFT_WRITE' || this.busy) return; // busy: the writer is mid-chunk
    this.busy = true;
    try {
      this.writer.flush();
    } catch {
      // the writer is broken too: the failure that matters was reported above
    } finally {
      this.busy = false;
    }
  }

  /** The code an end record carries: the one the run ends with, as far as it is known yet. */
  private endCode(): number {
    const current = this.currentExitCode?.();
    return typeof current === 'number' && NumberIsInteger(current) ? current : this.exitCode;
  }

  /**
   * Whether the code that called the hook's wrapper is a test runner's own (runners/own-code.ts):
   * the first frame of the stack that is neither the hook's nor Node's.
   */
  runnerCalls(): boolean {
    if (!this.stacks) return false;
    const busy = this.busy;
    this.busy = true; // a frame's package.json is read once, and may run the program's getters
    try {
      const frames = captureFrames(RUNNER_FRAMES);
      if (!frames) return false;
      // an index loop: the program may have replaced the array iterator
      for (let i = 0; i < frames.length; i++) {
        const kept = frameFile(frames[i]!.getFileName(), this.stack);
        if (kept !== null) return kept.package !== null && isRunnerPackage(kept.package);
      }
      return false;
    } catch (error) {
      this.lostStacks(error);
      return false;
    } finally {
      this.busy = busy;
    }
  }

  /** Stops recording without a word: wrappers pass straight through from now on. */
  halt(): void {
    this.on = false;
    this.contexts.disable();
  }

  /**
   * A stack that cannot be taken (a frozen `Error`, a throwing `prepareStackTrace` getter) costs
   * the sites, not the recording: reported once, and events go on without a site.
   */
  lostStacks(error: unknown): void {
    if (!this.stacks) return;
    this.stacks = false;
    if (this.on) report('ERR_DETDRIFT_STACK', error, 'call sites are no longer taken; values are still recorded');
  }

  private capture(above: Native | undefined): number {
    this.busy = true; // normalizing can read package.json files and call the program's getters
    try {
      const frames = captureFrames(CAPTURE_LIMIT, above);
      return frames ? this.intern(frames) : 0;
    } catch (error) {
      this.lostStacks(error);
      return 0;
    } finally {
      this.busy = false;
    }
  }

  private intern(frames: CallSite[]): number {
    let id = this.siteIds.get(frames);
    if (id !== 0) return id;
    let def: SiteDef;
    try {
      def = normalizeStack(frames, this.stack);
    } catch (error) {
      this.lostStacks(error);
      return 0;
    }
    id = this.lastSite + 1;
    this.generated.define(frames, this.stack, this.writer); // the maps a reader needs for this site, before it
    this.writer.defineSite(id, def); // first: a definition that fails leaves no id that names nothing
    this.lastSite = id;
    this.siteIds.set(frames, id);
    if (this.replayer) this.siteKeys.set(id, this.replayer.siteKey(def));
    return id;
  }
}

/** One line on stderr, with the saved real write: the only thing the hook ever says. */
function report(code: string, error: unknown, consequence: string): void {
  try {
    real.writeSync(real.stderrFd, `detdrift: ${code}: ${messageOf(error)} (${consequence})\n`);
  } catch {
    // an error that cannot be printed, or stderr is gone: nothing left to tell
  }
}
