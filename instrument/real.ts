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
import { ArrayIsArray, ObjectHasOwn, String, StringStartsWith, TextDecoderDecode } from '../tracer/primordials.js';

const { defineProperty, setPrototypeOf } = Reflect;

export const real = Object.freeze({
  apply: Reflect.apply,
  arraySlice: Array.prototype.slice,
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
  captureStackTrace: Error.captureStackTrace,
  // V8 reads stackTraceLimit from the realm's own Error; node's prepareStackTrace callback asks
  // globalThis.Error first, then this one (captureFrames checks they are the same)
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
  isPromise: types.isPromise,
  isNativeError: types.isNativeError,
  Number,
  // a program's own JSON.parse (a logging wrapper, say) must not see the hook's reads
  jsonParse: JSON.parse,
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

const utf8 = new TextDecoder();

/**
 * `promise.then(onFulfilled)` that asks the program nothing: `then` makes its promise with the
 * constructor it finds on `promise` (its species), which the program can change on
 * `Promise.prototype` or `Promise`. For the call, `promise` gets an own `constructor` naming the
 * real Promise, taken away again before any code of the program's can run.
 */
export function promiseThen(promise: Promise<unknown>, onFulfilled: (value: unknown) => unknown): Promise<unknown> {
  if (!defineProperty(promise, 'constructor', { __proto__: null, value: REAL_SPECIES, configurable: true } as PropertyDescriptor)) {
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

/** Reads and parses a JSON file with the real fs; null when it is missing or not JSON. */
export function readJsonFile(file: string): unknown {
  try {
    // no encoding asked of Node: its check of one calls `Buffer.isEncoding`, which the program can replace
    return real.jsonParse(TextDecoderDecode(utf8, real.readFileSync(file)));
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
  if (!settingsOurs(RealError)) throw new RealError('the program replaced Error, or made its stack settings accessors');
  const previousLimit = RealError.stackTraceLimit;
  const previousPrepare = RealError.prepareStackTrace;
  const holder: { stack?: CallSite[] } = {};
  try {
    RealError.stackTraceLimit = limit;
    RealError.prepareStackTrace = returnFrames;
    real.captureStackTrace(holder, above ?? captureFrames);
    const frames = holder.stack; // formatted lazily: read it while our prepareStackTrace is in place
    return ArrayIsArray(frames) ? frames : null;
  } finally {
    // compared first: assigning even the same value to a frozen Error would throw at the program
    if (RealError.stackTraceLimit !== previousLimit) RealError.stackTraceLimit = previousLimit;
    if (RealError.prepareStackTrace !== previousPrepare) RealError.prepareStackTrace = previousPrepare;
  }
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
    dataValue(globalThis, 'Error') === RealError &&
    dataValue(RealError, 'stackTraceLimit') !== ACCESSOR &&
    dataValue(RealError, 'prepareStackTrace') !== ACCESSOR
  );
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

/**
 * True when the code that called `fn` is Node's own (`node:internal/...`): its reads of
 * `process.pid` and its `process.listenerCount` are not the program's. A one-frame capture costs
 * microseconds, so only rare calls can afford it. An unknown caller counts as the program's.
 */
export function calledByNode(fn: (...args: never[]) => unknown): boolean {
  const file = callerFile(fn);
  return file !== null && StringStartsWith(file, 'node:internal/');
}
