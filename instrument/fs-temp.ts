import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import { Api } from '../tracer/apis.js';
import { CONTROLLED, REPLAYED } from '../tracer/format.js';
import {
  ArgAt,
  ArrayCopy,
  StringCharCodeAt,
  StringSlice,
  TypedArrayBuffer,
  TypedArrayByteOffset,
  TypedArrayLength,
  Uint8Array,
  Utf8Text,
} from '../tracer/primordials.js';
import { Stream, type Draws } from './control.js';
import type { Native, Patcher } from './patch.js';
import { absolutePath, promiseThen, real } from './real.js';
import type { Recorder } from './recorder.js';

// Saved when the hook loads, before the program runs: a substitute directory is made and Node's
// removed with these, and a Buffer path copied.
const mkdirSync = fs.mkdirSync;
const rmdirSync = fs.rmdirSync;
const rmSync = fs.rmSync;
const bufferFrom = Buffer.from;
const isBuffer = Buffer.isBuffer;
const SymbolDispose = (Symbol as { dispose?: symbol }).dispose;
const SymbolAsyncDispose = (Symbol as { asyncDispose?: symbol }).asyncDispose;

/** libuv's alphabet for the six characters that replace `XXXXXX` (uv__fs_mkdtemp; Windows' is the same). */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SUFFIX = 6;
/** Seeded names tried before Node's own is kept: each one taken is a directory that already exists. */
const TRIES = 64;

type Made = string | Uint8Array;
/** Whether the call comes from the program, not from Node's own fs use (fs.ts `fromProgram`). */
export type FromProgram = (recorder: Recorder, trap: Native) => boolean;

/**
 * `fs.mkdtemp` in every form: the six characters libuv draws from the operating system for the
 * directory's name are recorded (the value), at the call's site. Control and perturb mode give the
 * program a seeded name instead and replay the recorded one: Node's call still runs first (its
 * arguments, errors and the directory's mode are Node's), then the directory under the chosen name
 * is made (0o700, as libuv makes it) and Node's removed; a name already taken is drawn again
 * (recorded as uncontrolled: what is on disk chose it), and one replay cannot make leaves Node's. The disposable forms (Node 24)
 * get an object of the same shape whose `remove` removes the directory the program was given.
 */
export function patchMkdtemp(patcher: Patcher, recorder: Recorder, fromProgram: FromProgram): void {
  const exports = fs as unknown as Record<string, Native>;
  const settle = settler(recorder);
  const mine = (trap: Native) => recorder.on && fromProgram(recorder, trap);
  patcher.method(exports, 'mkdtempSync', {
    apply(target, thisArg, args) {
      if (!mine(this.apply!)) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.mkdtempSync);
      return settle(Api.mkdtempSync, site, real.apply(target, thisArg, args), ArgAt(args, 1));
    },
  });
  patcher.method(exports, 'mkdtemp', {
    apply(target, thisArg, args) {
      const index = typeof ArgAt(args, 1) === 'function' ? 1 : 2;
      const callback = ArgAt(args, index);
      if (typeof callback !== 'function' || !mine(this.apply!)) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.mkdtemp);
      const passed = ArrayCopy(args);
      // Named for the one frame it adds below the program's callback in stacks taken there.
      passed[index] = function settleThenCall(this: unknown, error: unknown, made: unknown) {
        if (error == null && recorder.on) {
          const results = ArrayCopy(arguments);
          results[1] = settle(Api.mkdtemp, site, made, index === 2 ? args[1] : undefined);
          return real.apply(callback as Native, this, results);
        }
        return real.apply(callback as Native, this, arguments);
      };
      return real.apply(target, thisArg, passed);
    },
  });
  if (typeof exports.mkdtempDisposableSync === 'function')
    patcher.method(exports, 'mkdtempDisposableSync', {
      apply(target, thisArg, args) {
        if (!mine(this.apply!)) return real.apply(target, thisArg, args);
        const site = recorder.site(Api.mkdtempDisposableSync);
        const made = real.apply(target, thisArg, args) as { path: Made };
        const path = settle(Api.mkdtempDisposableSync, site, made.path, ArgAt(args, 1));
        return path === made.path ? made : disposable(path as string);
      },
    });
}

/** The promise forms, on `fs.promises` (fs.ts `installPromises`): the program gets a follower promise. */
export function patchMkdtempPromises(patcher: Patcher, recorder: Recorder, fromProgram: FromProgram): void {
  const promises = fs.promises as unknown as Record<string, Native>;
  const settle = settler(recorder);
  const rm = promises.rm!;
  const mine = (trap: Native) => recorder.on && fromProgram(recorder, trap);
  patcher.method(promises, 'mkdtemp', {
    apply(target, thisArg, args) {
      if (!mine(this.apply!)) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.mkdtempPromise);
      const options = ArgAt(args, 1);
      return promiseThen(real.apply(target, thisArg, args), (made) =>
        recorder.on ? settle(Api.mkdtempPromise, site, made, options) : made,
      );
    },
  });
  if (typeof promises.mkdtempDisposable === 'function')
    patcher.method(promises, 'mkdtempDisposable', {
      apply(target, thisArg, args) {
        if (!mine(this.apply!)) return real.apply(target, thisArg, args);
        const site = recorder.site(Api.mkdtempDisposable);
        const options = ArgAt(args, 1);
        return promiseThen(real.apply(target, thisArg, args), (value) => {
          const made = value as { path: Made };
          if (!recorder.on) return made;
          const path = settle(Api.mkdtempDisposable, site, made.path, options);
          return path === made.path ? made : asyncDisposable(path as string, rm);
        });
      },
    });
}

/**
 * What the program gets for `made`, the directory Node's mkdtemp just made, recorded: the replayed
 * name, a seeded one, or `made`. A recorder failure stops recording and leaves the program `made`.
 */
function settler(recorder: Recorder): (api: number, site: number, made: unknown, options: unknown) => unknown {
  const stream = recorder.controller?.stream('fs.mkdtemp') ?? null;
  return (api, site, made, options) => {
    try {
      if (!named(made, options)) return made; // a path in another encoding (hex...): nothing to read
      const fed = recorder.replay(api, site);
      let value: Made | null = null;
      let flags = 0;
      if (typeof fed === 'string') {
        value = moved(made, fed);
        flags = REPLAYED;
      } else if (stream) {
        // One draw per call whatever is on disk, so later calls' names follow from the seed alone; a
        // name taken (a run that left its directory) is drawn again from it, and the disk decided that.
        const first = draw(stream);
        value = moved(made, first);
        flags = CONTROLLED;
        const again = value === null ? new Stream(first, 'fs.mkdtemp') : null;
        for (let i = 1; again !== null && i < TRIES && value === null; i++) value = moved(made, draw(again));
        if (again !== null) flags = 0;
      }
      if (value === null) {
        value = made;
        flags = 0;
      }
      recorder.string(api, site, suffixOf(value), flags);
      return value;
    } catch (error) {
      recorder.fail('ERR_DETDRIFT_FS', error);
      return made;
    }
  };
}

/** Whether `made` spells the directory's name: a Buffer, or a string in no encoding but UTF-8. */
function named(made: unknown, options: unknown): made is Made {
  if (isBuffer(made)) return true;
  if (typeof made !== 'string' || made.length < SUFFIX) return false;
  const encoding =
    typeof options === 'string'
      ? options
      : options !== null && typeof options === 'object'
        ? (options as { encoding?: unknown }).encoding
        : undefined;
  return encoding == null || encoding === 'utf8' || encoding === 'utf-8' || encoding === 'UTF8' || encoding === 'UTF-8';
}

function draw(stream: Draws): string {
  let suffix = '';
  for (let i = 0; i < SUFFIX; i++) suffix += ALPHABET[stream.int(0, ALPHABET.length)];
  return suffix;
}

/**
 * `made` with its last six characters replaced by `suffix`, once that directory is made and
 * `made` removed; null when the name is taken or cannot be made (then `made` stays).
 */
function moved(made: Made, suffix: string): Made | null {
  const target = withSuffix(made, suffix);
  if (suffixOf(made) === suffix) return made;
  try {
    real.apply(mkdirSync, fs, [target, 0o700]);
  } catch {
    return null; // EEXIST, or a name the file system refuses: another draw, or Node's name
  }
  real.apply(rmdirSync, fs, [made]);
  return target;
}

function withSuffix(made: Made, suffix: string): Made {
  if (typeof made === 'string') return StringSlice(made, 0, made.length - SUFFIX) + suffix;
  const copy = real.apply(bufferFrom, Buffer, [made]) as Uint8Array;
  const start = TypedArrayLength(copy) - SUFFIX;
  for (let i = 0; i < SUFFIX; i++) copy[start + i] = StringCharCodeAt(suffix, i);
  return copy;
}

/** The name's last six characters: what libuv (or the hook) put in place of `XXXXXX`. */
function suffixOf(made: Made): string {
  if (typeof made === 'string') return StringSlice(made, made.length - SUFFIX);
  const length = TypedArrayLength(made);
  return Utf8Text(new Uint8Array(TypedArrayBuffer(made), TypedArrayByteOffset(made) + length - SUFFIX, SUFFIX));
}

/** What Node 24's mkdtempDisposableSync returns, for `path`: `remove` takes the directory and its contents. */
function disposable(path: string): object {
  const full = absolutePath(path); // as Node: resolved now, in case the program changes directory
  const remove = () => {
    real.apply(rmSync, fs, [full, { recursive: true, force: true }]);
  };
  return {
    path,
    remove,
    [SymbolDispose!]() {
      remove();
    },
  };
}

/** What Node 24's `fs.promises.mkdtempDisposable` resolves to, for `path`. */
function asyncDisposable(path: string, rm: Native): object {
  const full = absolutePath(path);
  const remove = async () => {
    await real.apply(rm, fs.promises, [full, { recursive: true, force: true, maxRetries: 0, retryDelay: 0 }]);
  };
  return {
    __proto__: null,
    path,
    remove,
    async [SymbolAsyncDispose!]() {
      await remove();
    },
  };
}
