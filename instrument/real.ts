/**
 * The real built-ins, saved once when the hook loads and before any family patches anything.
 * The recorder, the writer and every internal timing use only these, so the tool's own clock,
 * randomness and file access never reach a trace, and a program that patches a global later
 * cannot redirect the tool. Here: the sources the families patch and the Node APIs the hook uses;
 * the language's own built-ins, which tracer/ code needs too, are in tracer/primordials.ts.
 */
import fs from 'node:fs';
import type { RawFrame } from '../tracer/stack.js';
import asyncHooks from 'node:async_hooks';
import path from 'node:path';
import vm from 'node:vm';
import { types } from 'node:util';
import type Os from 'node:os';
import type WorkerThreads from 'node:worker_threads';
import {
  ArrayBuffer,
  ArrayIncludes,
  ArrayIsArray,
  ObjectHasOwn,
  String,
  TypedArraySet,
  Uint8Array,
  Utf8Decode,
} from '../tracer/primordials.js';

const { defineProperty, setPrototypeOf } = Reflect;

export const real = Object.freeze({
  apply: Reflect.apply,
  construct: Reflect.construct,
  /**
   * Reflect.defineProperty with the descriptor cut from `Object.prototype` first: its `get`, `set`
   * and `value` are read from it alone, never from a program's `Object.prototype.get`.
   */
  defineProperty(target: object, key: PropertyKey, descriptor: PropertyDescriptor): boolean {
    setPrototypeOf(descriptor, null);
    return defineProperty(target, key, descriptor);
  },
  setPrototypeOf,
  getOwnPropertyDescriptor: Reflect.getOwnPropertyDescriptor,
  getPrototypeOf: Reflect.getPrototypeOf,
  get: Reflect.get,
  captureStackTrace: Error.captureStackTrace,
  isExtensible: Reflect.isExtensible,
  // a context of the hook's own, whose Error takes stacks where the program's realm's is frozen
  createContext: vm.createContext,
  runInContext: vm.runInContext,
  // V8 reads stackTraceLimit from the realm's own Error; node's prepareStackTrace callback asks
  // globalThis.Error first, then this one (captureFrames checks they are the same)
  Error,
  Date,
  dateGetTime: Date.prototype.getTime,
  dateToString: Date.prototype.toString,
  hrtime: process.hrtime,
  pid: process.pid,
  // whether the detdrift command that records is still there (sink.ts)
  kill: process.kill,
  openSync: fs.openSync,
  writeSync: fs.writeSync,
  closeSync: fs.closeSync,
  readSync: fs.readSync,
  // a worker's trace, completed by its parent with what the worker left in shared memory (workers.ts)
  ftruncateSync: fs.ftruncateSync,
  atomicsWait: Atomics.wait,
  ownKeys: Reflect.ownKeys,
  mkdirSync: fs.mkdirSync,
  // the trace directory, listed when a process's name is taken many times (lineage.ts)
  readdirSync: fs.readdirSync,
  // a launcher's main script, reached through the link that named it on PATH (launcher.ts)
  realpathSync: fs.realpathSync,
  unlinkSync: fs.unlinkSync,
  executionAsyncId: asyncHooks.executionAsyncId,
  executionAsyncResource: asyncHooks.executionAsyncResource,
  // the fs family: settling program promises, naming directory entries, reading bigint stats
  isPromise: types.isPromise,
  isNativeError: types.isNativeError,
  isProxy: types.isProxy,
  // a child's message, described without running its code (messages.ts)
  isDate: types.isDate,
  // a program's own JSON.parse (a logging wrapper, say) must not see the hook's reads
  jsonParse: JSON.parse,
  pathJoin: path.join,
  pathRelative: path.relative,
  pathResolve: path.resolve,
  isAbsolute: path.isAbsolute,
  // path.resolve and path.relative call process.cwd for a relative path: the program's, if it mocked it
  cwd: process.cwd,
  stderrFd: 2,
});

const getBuiltinModule = process.getBuiltinModule;

/**
 * A builtin the hook loads only when a family needs it (deferred.ts), through the real
 * `process.getBuiltinModule`: the hook's own loads never install a deferred family.
 */
export function builtin<T>(id: string): T {
  return real.apply(getBuiltinModule, process, [id]) as T;
}

/** node:os, and its functions the hook calls itself, as Node made them. */
export interface OsReals {
  readonly os: typeof Os;
  readonly hostname: typeof Os.hostname;
  readonly cpus: typeof Os.cpus;
  readonly tmpdir: typeof Os.tmpdir;
}

let osReals: OsReals | undefined;

/**
 * node:os, loaded when first needed rather than at every start (its loading is a hundred and fifty
 * microseconds no plain `node -e 0` spends): by the process family as it installs, before it
 * patches anything, or by perturb mode's description of a run. Either way before the program can
 * reach the module: the family installs before Node hands it out (deferred.ts).
 */
export function realOs(): OsReals {
  if (osReals === undefined) {
    const os = builtin<typeof Os>('node:os');
    osReals = { os, hostname: os.hostname, cpus: os.cpus, tmpdir: os.tmpdir };
  }
  return osReals;
}

/** What lineage and the workers family use of worker_threads: naming threads. */
export type Threads = Pick<
  typeof WorkerThreads,
  'isMainThread' | 'threadId' | 'getEnvironmentData' | 'setEnvironmentData'
>;

/**
 * worker_threads where this thread has loaded it already, else null: a worker thread loads it as
 * it boots, the main thread only when asked, and then it loads the streams too (a sixth of Node's
 * own start-up). Null means the main thread, whose environment data nothing has set yet. Without
 * a list of loaded modules to ask (not every Node may keep one), it is loaded.
 */
export function loadedThreads(): Threads | null {
  const loaded = (process as { moduleLoadList?: unknown }).moduleLoadList;
  if (ArrayIsArray(loaded) && !ArrayIncludes(loaded, 'NativeModule worker_threads')) return null;
  const threads = builtin<typeof WorkerThreads>('node:worker_threads');
  const { isMainThread, threadId, getEnvironmentData, setEnvironmentData } = threads;
  return { isMainThread, threadId, getEnvironmentData, setEnvironmentData };
}

// The hook's collections live with the other saved built-ins that tracer/ code uses too.
export { SafeMap, SafeWeakMap, SafeWeakSet } from '../tracer/primordials.js';

/**
 * What an error says, for the hook's one line on stderr, read without running the program's code:
 * an object that is no native error is not asked for its `toString`.
 */
export function messageOf(error: unknown): string {
  if (real.isNativeError(error)) return typeof error.message === 'string' ? error.message : '';
  return typeof error === 'object' && error !== null ? 'a thrown object that is not an Error' : String(error);
}

/**
 * `promise.then(onFulfilled)` that asks the program nothing: `then` makes its promise with the
 * constructor it finds on `promise` (its species), which the program can change on
 * `Promise.prototype` or `Promise`. For the call, `promise` gets an own `constructor` naming the
 * real Promise, taken away again before any code of the program's can run.
 */
export function promiseThen(promise: Promise<unknown>, onFulfilled: (value: unknown) => unknown): Promise<unknown> {
  if (
    !defineProperty(promise, 'constructor', {
      __proto__: null,
      value: REAL_SPECIES,
      configurable: true,
    } as PropertyDescriptor)
  ) {
    return real.apply(promiseThenMethod, promise, [onFulfilled]) as Promise<unknown>; // a frozen promise: as the program's own `then` would
  }
  try {
    return real.apply(promiseThenMethod, promise, [onFulfilled]) as Promise<unknown>;
  } finally {
    delete (promise as { constructor?: unknown }).constructor;
  }
}

const promiseThenMethod = Promise.prototype.then;
/** What `then` asks `constructor` for: its `Symbol.species`, here the real Promise. */
const REAL_SPECIES = { __proto__: null, [Symbol.species]: Promise };

/**
 * `path` made absolute against the real working directory (see `cwd`), asked for only when the
 * path is relative: a test that removed the directory it ran in leaves `process.cwd()` throwing.
 */
export function absolutePath(path: string): string {
  return real.pathResolve(real.isAbsolute(path) ? path : real.pathResolve(real.cwd(), path));
}

/** `path.relative(from, to)`, both made absolute first (`absolutePath`). */
export function relativePath(from: string, to: string): string {
  return real.pathRelative(absolutePath(from), absolutePath(to));
}

/**
 * Gives a view of the hook's own an own `byteLength`: Node's `writeSync` and `readSync` check the
 * buffer they are handed by reading `buffer.byteLength`, which would otherwise run the getter on
 * `TypedArray.prototype`, the program's if it replaced it.
 */
export function withOwnByteLength(view: Uint8Array, length: number): Uint8Array {
  if (!defineProperty(view, 'byteLength', { __proto__: null, value: length } as PropertyDescriptor))
    throw new real.Error('a view of the hook was handed twice');
  return view;
}

/**
 * Reads and parses a JSON file with the real fs; null when it is missing or not JSON. Read into a
 * buffer of the hook's own: `readFileSync` makes its Buffer through `Buffer.allocUnsafe` and asks
 * an encoding of `Buffer.isEncoding`, both the program's to replace.
 */
export function readJsonFile(file: string): unknown {
  let fd: number;
  try {
    fd = real.openSync(file, 'r');
  } catch {
    return null; // a missing package.json only costs the frame its version
  }
  try {
    let buffer = new ArrayBuffer(JSON_CHUNK);
    let size = JSON_CHUNK;
    let length = 0;
    for (;;) {
      if (length === size) buffer = grown(buffer, length, (size *= 2));
      const room = size - length;
      const read = real.readSync(fd, withOwnByteLength(new Uint8Array(buffer, length, room), room), 0, room, null);
      if (read === 0) break;
      length += read;
    }
    return real.jsonParse(Utf8Decode(new Uint8Array(buffer, 0, length)));
  } catch {
    return null; // an unreadable or broken package.json only costs the frame its version
  } finally {
    real.closeSync(fd);
  }
}

const JSON_CHUNK = 4096;

function grown(buffer: ArrayBuffer, length: number, size: number): ArrayBuffer {
  const larger = new ArrayBuffer(size);
  TypedArraySet(new Uint8Array(larger), new Uint8Array(buffer, 0, length));
  return larger;
}

/** A V8 call site, as `Error.prepareStackTrace` hands it out: the fields tracer/stack.ts reads. */
export interface CallSite extends RawFrame {
  /** the call's offset in its file's source: line and column in one number, without computing them */
  getPosition(): number;
}

const returnFrames = (_error: Error, frames: CallSite[]): CallSite[] => frames;

/**
 * The structured call sites above `above` (or above this function), at most `limit` of them.
 * V8 reads the two settings from the realm's own Error, so they are set on the saved one and put
 * back right after; a failure (a frozen Error) throws to the caller, which decides what it costs.
 */
export function captureFrames(limit: number, above?: (...args: never[]) => unknown): CallSite[] | null {
  const ours = settable(real.Error) ? null : spareRealm();
  const RealError = ours?.Error ?? real.Error;
  if (ours === null && !settingsOurs(RealError))
    throw new RealError(
      "the program's global Error does not take its prepareStackTrace from the realm's Error, or the stack settings are accessors",
    );
  const previousLimit = RealError.stackTraceLimit;
  const previousPrepare = RealError.prepareStackTrace;
  // Node asks the Error of the holder's realm for a prepareStackTrace: the spare realm's, where it is ours
  const holder: { stack?: CallSite[] } = ours ? new ours.Object() : {};
  try {
    RealError.stackTraceLimit = limit;
    RealError.prepareStackTrace = returnFrames;
    real.apply(ours?.captureStackTrace ?? real.captureStackTrace, RealError, [holder, above ?? captureFrames]);
    const frames = holder.stack; // formatted lazily: read it while our prepareStackTrace is in place
    return ArrayIsArray(frames) ? frames : null;
  } finally {
    // compared first: assigning even the same value to a frozen Error would throw at the program
    if (RealError.stackTraceLimit !== previousLimit) RealError.stackTraceLimit = previousLimit;
    if (RealError.prepareStackTrace !== previousPrepare) RealError.prepareStackTrace = previousPrepare;
  }
}

/**
 * Whether the stack settings can be set on `RealError`: not where it is frozen (`node
 * --frozen-intrinsics`, a lockdown), which a program may do after the hook's first capture too.
 */
function settable(RealError: ErrorConstructor): boolean {
  const limit = real.getOwnPropertyDescriptor(RealError, 'stackTraceLimit');
  const prepare = real.getOwnPropertyDescriptor(RealError, 'prepareStackTrace');
  if (limit !== undefined && limit.writable === false) return false;
  return prepare === undefined ? real.isExtensible(RealError) : prepare.writable !== false;
}

/** A context of the hook's own: its Error, its Object, and its Error's captureStackTrace. */
interface SpareRealm {
  readonly Error: ErrorConstructor;
  readonly Object: ObjectConstructor;
  readonly captureStackTrace: ErrorConstructor['captureStackTrace'];
}

let spare: SpareRealm | null = null;

/**
 * Where the realm's Error is frozen, a context of the hook's own lends its Error: V8 captures the
 * isolate's whole stack whichever realm's Error asks, and reads the limit and prepareStackTrace
 * from that one. Made once, with the real `vm` (the realms family patches the program's contexts).
 */
function spareRealm(): SpareRealm {
  if (spare === null) {
    const global = real.runInContext('globalThis', real.createContext()) as typeof globalThis;
    spare = { Error: global.Error, Object: global.Object, captureStackTrace: global.Error.captureStackTrace };
  }
  return spare;
}

/**
 * Whether a capture runs nothing of the program's. Node asks the *global* `Error` for a
 * `prepareStackTrace` before the realm's own (its polyfill of V8's API), so a program that put
 * another Error there would see the hook's captures and answer them; and a setting the program
 * made an accessor would run its getter and setter. Read as descriptors: reading `Error` off
 * `globalThis` could itself run a getter.
 */
function settingsOurs(RealError: ErrorConstructor): boolean {
  return (
    inheritsOurs(dataValue(globalThis, 'Error'), RealError) &&
    dataValue(RealError, 'stackTraceLimit') !== ACCESSOR &&
    dataValue(RealError, 'prepareStackTrace') !== ACCESSOR
  );
}

/**
 * Whether `global` finds its `prepareStackTrace` on the realm's Error: it is that Error, or a
 * subclass of it (`class AppError extends Error`) with none of its own on the way. A Proxy is not
 * walked: its `getPrototypeOf` trap is the program's code.
 */
function inheritsOurs(global: unknown, RealError: ErrorConstructor): boolean {
  for (let level = global, depth = 0; depth < 16; depth++) {
    if (level === RealError) return true;
    if (
      typeof level !== 'function' ||
      real.isProxy(level) ||
      real.getOwnPropertyDescriptor(level, 'prepareStackTrace') !== undefined
    )
      return false;
    level = real.getPrototypeOf(level);
  }
  return false;
}

const ACCESSOR = Symbol('accessor');

/** An own data property's value; undefined when there is none, ACCESSOR for a getter or setter. */
export function dataValue(target: object, key: string): unknown {
  const descriptor = real.getOwnPropertyDescriptor(target, key);
  if (descriptor === undefined) return undefined;
  return ObjectHasOwn(descriptor, 'value') ? descriptor.value : ACCESSOR;
}

/** The file of the code that called `fn`, or null when it cannot be told (a frozen Error, say). */
export function callerFile(fn: (...args: never[]) => unknown): string | null {
  try {
    return captureFrames(1, fn)?.[0]?.getFileName() ?? null;
  } catch {
    return null; // the caller stays unknown; each use says what that means
  }
}
