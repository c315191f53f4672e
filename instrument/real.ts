/**
 * The real built-ins, saved once when the hook loads and before any family patches anything.
 * The recorder, the writer and every internal timing use only these, so the tool's own clock,
 * randomness and file access never reach a trace, and a program that patches a global later
 * cannot redirect the tool.
 */
import fs from 'node:fs';
import type { RawFrame } from '../tracer/stack.js';
import os from 'node:os';
import asyncHooks from 'node:async_hooks';
import { EventEmitter } from 'node:events';
import workerThreads from 'node:worker_threads';
import path from 'node:path';
import { types } from 'node:util';

export const real = Object.freeze({
  apply: Reflect.apply,
  arraySlice: Array.prototype.slice,
  construct: Reflect.construct,
  defineProperty: Reflect.defineProperty,
  setPrototypeOf: Reflect.setPrototypeOf,
  getOwnPropertyDescriptor: Reflect.getOwnPropertyDescriptor,
  captureStackTrace: Error.captureStackTrace,
  // V8 reads stackTraceLimit and prepareStackTrace from the realm's own Error, not globalThis.Error
  Error,
  Uint8Array,
  isView: ArrayBuffer.isView,
  Date,
  dateNow: Date.now,
  dateGetTime: Date.prototype.getTime,
  dateToString: Date.prototype.toString,
  mathRandom: Math.random,
  hrtime: process.hrtime,
  hrtimeBigint: process.hrtime.bigint,
  pid: process.pid,
  setTimeout: globalThis.setTimeout,
  setImmediate: globalThis.setImmediate,
  openSync: fs.openSync,
  writeSync: fs.writeSync,
  closeSync: fs.closeSync,
  readFileSync: fs.readFileSync,
  mkdirSync: fs.mkdirSync,
  unlinkSync: fs.unlinkSync,
  existsSync: fs.existsSync,
  hostname: os.hostname,
  executionAsyncId: asyncHooks.executionAsyncId,
  executionAsyncResource: asyncHooks.executionAsyncResource,
  // the fs family: settling program promises, naming directory entries, reading bigint stats
  promiseThen: Promise.prototype.then,
  isPromise: types.isPromise,
  Number,
  // a program's own JSON.parse (a logging wrapper, say) must not see the hook's reads
  jsonParse: JSON.parse,
  bufferToString: Buffer.prototype.toString,
  pathJoin: path.join,
  pathRelative: path.relative,
  // lifecycle, lineage and children: our own listeners, re-raising a signal, naming workers
  emitterOn: EventEmitter.prototype.on,
  emitterPrepend: EventEmitter.prototype.prependListener,
  emitterRemove: EventEmitter.prototype.removeListener,
  kill: process.kill,
  getEnvironmentData: workerThreads.getEnvironmentData,
  setEnvironmentData: workerThreads.setEnvironmentData,
  stderrFd: 2,
});

/**
 * A collection class whose methods are the built-in ones as the hook found them, copied onto its
 * own prototype as Node's primordials do: wrappers keep per-object state while the program runs,
 * and a program that replaces `WeakMap.prototype.set` must reach neither that state nor, through
 * it, make its own `console.log` throw.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function safe<C extends new (...args: any[]) => object>(Base: C): C {
  // A constructor of its own: the default one spreads its arguments through the program's array iterator.
  const Safe = class extends (Base as new (entries?: unknown) => object) {
    constructor(entries?: unknown) {
      super(entries);
    }
  };
  for (const key of Reflect.ownKeys(Base.prototype)) {
    if (key !== 'constructor') Reflect.defineProperty(Safe.prototype, key, Reflect.getOwnPropertyDescriptor(Base.prototype, key)!);
  }
  return Safe as unknown as C;
}

export const SafeMap = safe(Map);
export const SafeWeakMap = safe(WeakMap);
export const SafeWeakSet = safe(WeakSet);

/** Reads and parses a JSON file with the real fs; null when it is missing or not JSON. */
export function readJsonFile(file: string): unknown {
  try {
    return real.jsonParse(real.readFileSync(file, 'utf8'));
  } catch {
    return null; // a missing or broken package.json only costs the frame its version
  }
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
  const RealError = real.Error;
  const previousLimit = RealError.stackTraceLimit;
  const previousPrepare = RealError.prepareStackTrace;
  const holder: { stack?: CallSite[] } = {};
  try {
    RealError.stackTraceLimit = limit;
    RealError.prepareStackTrace = returnFrames;
    real.captureStackTrace(holder, above ?? captureFrames);
    const frames = holder.stack; // formatted lazily: read it while our prepareStackTrace is in place
    return Array.isArray(frames) ? frames : null;
  } finally {
    // compared first: assigning even the same value to a frozen Error would throw at the program
    if (RealError.stackTraceLimit !== previousLimit) RealError.stackTraceLimit = previousLimit;
    if (RealError.prepareStackTrace !== previousPrepare) RealError.prepareStackTrace = previousPrepare;
  }
}

/** The file of the code that called `fn`, or null when it cannot be told (a frozen Error, say). */
export function callerFile(fn: (...args: never[]) => unknown): string | null {
  try {
    return captureFrames(1, fn)?.[0]?.getFileName() ?? null;
  } catch {
    return null; // the caller stays unknown; each use says what that means
  }
}

/**
 * True when the code that called `fn` is Node's own (`node:internal/...`): its reads of
 * `process.pid` and its `process.listenerCount` are not the program's. A one-frame capture costs
 * microseconds, so only rare calls can afford it. An unknown caller counts as the program's.
 */
export function calledByNode(fn: (...args: never[]) => unknown): boolean {
  return callerFile(fn)?.startsWith('node:internal/') ?? false;
}
