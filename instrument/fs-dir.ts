import fs from 'node:fs';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { wrap, type Native, type Patcher } from './patch.js';
import { real } from './real.js';
import type { Recorder } from './recorder.js';

/** Records one result the program got; `args` are the arguments of the call that produced it. */
export type RecordResult = (site: number, value: unknown, args: readonly unknown[]) => void;

/**
 * Calls `target` with the callback at `index` replaced by one that records a success first, then
 * calls the program's callback with the same receiver and arguments.
 */
export function withCallback(recorder: Recorder, target: Native, thisArg: unknown, args: readonly unknown[], index: number, record: RecordResult, site: number): unknown {
  const callback = args[index] as Native;
  const copy: unknown[] = [];
  for (let i = 0; i < args.length; i++) copy[i] = args[i];
  // Named for the one frame it adds below the program's callback in stacks taken there.
  copy[index] = function recordThenCall(this: unknown, ...results: unknown[]) {
    if (results[0] == null && recorder.on) guard(recorder, () => record(site, results[1], args));
    return real.apply(callback, this, results);
  };
  return real.apply(target, thisArg, copy);
}

/**
 * The program's promise, followed by one that records its value. The program gets the follower,
 * so a rejection is handled, or not, exactly as the program handles it: one tick later.
 */
export function withPromise(recorder: Recorder, promise: unknown, args: readonly unknown[], record: RecordResult, site: number): unknown {
  if (!real.isPromise(promise)) return promise;
  const settle = (value: unknown) => {
    if (recorder.on) guard(recorder, () => record(site, value, args));
    return value;
  };
  return real.apply(real.promiseThen, promise, [settle]);
}

/** A recorder failure (a strange entry, a full disk) stops recording; it never reaches the program. */
export function guard(recorder: Recorder, record: () => void): void {
  try {
    record();
  } catch (error) {
    recorder.fail('ERR_DETDRIFT_FS', error);
  }
}

/**
 * An entry as the program saw it: a string, a Buffer, or a Dirent. A Dirent found below `base`
 * (recursive listings) is named by its path relative to `base`, as string listings name it.
 */
export function entryName(entry: unknown, base: unknown): string {
  if (typeof entry === 'string') return entry;
  if (entry === null || typeof entry !== 'object' || !('name' in entry)) return text(entry);
  const { name, parentPath } = entry as { name: unknown; parentPath?: unknown };
  if (typeof base !== 'string' || typeof parentPath !== 'string' || parentPath === base) return text(name);
  const relative = real.pathRelative(base, parentPath);
  return relative === '' ? text(name) : real.pathJoin(relative, text(name));
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : (real.apply(real.bufferToString, value, ['utf8']) as string);
}

/**
 * Dir iteration of the program's own `Dir`s (`dirs`, filled by the opendir wrappers): `read` with
 * a callback or a promise, `readSync`, and `entries()`/`for await`. Node's iterator reads through
 * private methods, so the generator it returns gets its own `next` that records each step.
 */
export function patchDir(patcher: Patcher, recorder: Recorder, dirs: WeakSet<object>): void {
  const proto = fs.Dir.prototype as unknown as Record<PropertyKey, Native>;
  const pathOf = real.getOwnPropertyDescriptor(proto, 'path')!.get!;
  const recordFor = (dir: object): RecordResult => (site, dirent) => {
    if (dirent === null) recorder.number(Api.dirRead, Tag.none, site, 0);
    else recorder.string(Api.dirRead, site, entryName(dirent, real.apply(pathOf, dir, [])));
  };
  const mine = (dir: unknown) => recorder.on && typeof dir === 'object' && dir !== null && dirs.has(dir);

  patcher.method(proto, 'read', {
    apply(target, dir, args) {
      if (!mine(dir)) return real.apply(target, dir, args);
      const site = recorder.site(Api.dirRead);
      if (typeof args[0] === 'function') return withCallback(recorder, target, dir, args, 0, recordFor(dir), site);
      return withPromise(recorder, real.apply(target, dir, args), args, recordFor(dir), site);
    },
  });
  patcher.method(proto, 'readSync', {
    apply(target, dir, args) {
      if (!mine(dir)) return real.apply(target, dir, args);
      const site = recorder.site(Api.dirRead);
      const dirent = real.apply(target, dir, args);
      if (recorder.on) guard(recorder, () => recordFor(dir)(site, dirent, args));
      return dirent;
    },
  });

  const iterate: ProxyHandler<Native> = {
    apply(target, dir, args) {
      const iterator = real.apply(target, dir, args) as { next: Native };
      if (mine(dir)) guard(recorder, () => recordSteps(recorder, iterator, recordFor(dir)));
      return iterator;
    },
  };
  // Node's `Dir.prototype[Symbol.asyncIterator]` is `entries` itself: keep them one function.
  const entries = proto.entries!;
  const shared = proto[Symbol.asyncIterator] === entries;
  patcher.method(proto, 'entries', iterate);
  if (shared) patcher.value(proto, Symbol.asyncIterator, proto.entries);
  else patcher.method(proto, Symbol.asyncIterator, iterate);
}

/**
 * Gives one of Node's Dir generators an own `next` that records each step: an entry, or the end.
 * The site is taken when the program asks for the next entry, before the generator resumes.
 */
function recordSteps(recorder: Recorder, iterator: { next: Native }, record: RecordResult): void {
  const step: RecordResult = (site, result, args) => {
    const { done, value } = result as IteratorResult<unknown>;
    record(site, done ? null : value, args);
  };
  const next = wrap(iterator.next, {
    apply(target, thisArg, args) {
      if (!recorder.on) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.dirRead);
      return withPromise(recorder, real.apply(target, thisArg, args), args, step, site);
    },
  });
  real.defineProperty(iterator, 'next', { value: next, writable: true, enumerable: false, configurable: true });
}
