import fs from 'node:fs';
import { sep } from 'node:path';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { ArgAt, Utf8Text } from '../tracer/primordials.js';
import { wrap, type Native, type Patcher } from './patch.js';
import { promiseThen, real, relativePath } from './real.js';
import type { Recorder } from './recorder.js';

/** Records one result the program got; `args` are the arguments of the call that produced it. */
export type RecordResult = (site: number, value: unknown, args: readonly unknown[]) => void;

/** Perturb mode: the result the program gets instead of the real one (a listing in another order). */
export type Substitute = (value: unknown) => unknown;

/**
 * Calls `target` with the callback at `index` replaced by one that records a success first, then
 * calls the program's callback with the same receiver and arguments.
 */
export function withCallback(
  recorder: Recorder,
  target: Native,
  thisArg: unknown,
  args: readonly unknown[],
  index: number,
  record: RecordResult,
  site: number,
  substitute?: Substitute,
): unknown {
  const callback = args[index] as Native;
  const copy: unknown[] = [];
  for (let i = 0; i < args.length; i++) copy[i] = args[i];
  // Named for the one frame it adds below the program's callback in stacks taken there.
  copy[index] = function recordThenCall(this: unknown, ...results: unknown[]) {
    if (results[0] == null && recorder.on) {
      if (substitute) results[1] = substituted(recorder, substitute, results[1]);
      guard(recorder, () => record(site, results[1], args));
    }
    return real.apply(callback, this, results);
  };
  return real.apply(target, thisArg, copy);
}

/**
 * The program's promise, followed by one that records its value. The program gets the follower,
 * so a rejection is handled, or not, exactly as the program handles it: one tick later.
 */
export function withPromise(
  recorder: Recorder,
  promise: unknown,
  args: readonly unknown[],
  record: RecordResult,
  site: number,
  substitute?: Substitute,
): unknown {
  if (!real.isPromise(promise)) return promise;
  const settle = (value: unknown) => {
    if (!recorder.on) return value;
    if (substitute) value = substituted(recorder, substitute, value);
    guard(recorder, () => record(site, value, args));
    return value;
  };
  return promiseThen(promise, settle);
}

/** A recorder failure (a strange entry, a full disk) stops recording; it never reaches the program. */
export function guard(recorder: Recorder, record: () => void): void {
  try {
    record();
  } catch (error) {
    recorder.fail('ERR_DETDRIFT_FS', error);
  }
}

/** The substitute's value; on a failure inside it, the real one (and recording stops). */
export function substituted(recorder: Recorder, substitute: Substitute, value: unknown): unknown {
  try {
    return substitute(value);
  } catch (error) {
    recorder.fail('ERR_DETDRIFT_PERTURB', error);
    return value;
  }
}

/**
 * Perturb mode: a program's Dir (opened at `path` with `options`) hands out, one per real read, the
 * entries of a snapshot of its directory in the perturbed order. The real read still runs, so the
 * program's reads keep their async contexts and errors; the snapshot is taken at the first entry.
 */
export interface DirOrder {
  readonly path: unknown;
  readonly options: unknown;
  entries: readonly unknown[] | null;
  at: number;
}

function reordered(recorder: Recorder, order: DirOrder): Substitute {
  return (dirent) => {
    if (dirent === null || dirent === undefined) return dirent;
    order.entries ??= recorder.perturber!.dirSnapshot(order.path, order.options);
    return order.at < order.entries.length ? order.entries[order.at++] : dirent;
  };
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
  const relative = relativePath(base, parentPath);
  // joined by hand: node's path.join pushes onto an array the program's way
  return relative === '' ? text(name) : `${relative}${sep}${text(name)}`;
}

/** A name as a string: a Buffer's bytes as UTF-8. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : Utf8Text(value as ArrayBufferView);
}

/**
 * Dir iteration of the program's own `Dir`s (`dirs`, filled by the opendir wrappers): `read` with
 * a callback or a promise, `readSync`, and `entries()`/`for await`. Node's iterator reads through
 * private methods, so the generator it returns gets its own `next` that records each step.
 */
export function patchDir(
  patcher: Patcher,
  recorder: Recorder,
  dirs: WeakSet<object>,
  orders: WeakMap<object, DirOrder>,
): void {
  const proto = fs.Dir.prototype as unknown as Record<PropertyKey, Native>;
  const pathOf = real.getOwnPropertyDescriptor(proto, 'path')!.get!;
  const recordFor =
    (dir: object): RecordResult =>
    (site, dirent) => {
      if (dirent === null) recorder.number(Api.dirRead, Tag.none, site, 0);
      else recorder.string(Api.dirRead, site, entryName(dirent, real.apply(pathOf, dir, [])));
    };
  const mine = (dir: unknown) => recorder.on && typeof dir === 'object' && dir !== null && dirs.has(dir);
  const substituteFor = (dir: object): Substitute | undefined => {
    const order = orders.get(dir);
    return order && reordered(recorder, order);
  };

  patcher.method(proto, 'read', {
    apply(target, dir, args) {
      if (!mine(dir)) return real.apply(target, dir, args);
      const site = recorder.site(Api.dirRead);
      if (typeof ArgAt(args, 0) === 'function')
        return withCallback(recorder, target, dir, args, 0, recordFor(dir), site, substituteFor(dir));
      return withPromise(recorder, real.apply(target, dir, args), args, recordFor(dir), site, substituteFor(dir));
    },
  });
  patcher.method(proto, 'readSync', {
    apply(target, dir, args) {
      if (!mine(dir)) return real.apply(target, dir, args);
      const site = recorder.site(Api.dirRead);
      let dirent = real.apply(target, dir, args);
      if (!recorder.on) return dirent;
      const substitute = substituteFor(dir);
      if (substitute) dirent = substituted(recorder, substitute, dirent);
      guard(recorder, () => recordFor(dir)(site, dirent, args));
      return dirent;
    },
  });

  const iterate: ProxyHandler<Native> = {
    apply(target, dir, args) {
      const iterator = real.apply(target, dir, args) as { next: Native };
      if (mine(dir)) guard(recorder, () => recordSteps(recorder, iterator, recordFor(dir), substituteFor(dir)));
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
function recordSteps(
  recorder: Recorder,
  iterator: { next: Native },
  record: RecordResult,
  substitute?: Substitute,
): void {
  const step: RecordResult = (site, result, args) => {
    const { done, value } = result as IteratorResult<unknown>;
    record(site, done ? null : value, args);
  };
  const next = wrap(iterator.next, {
    apply(target, thisArg, args) {
      if (!recorder.on) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.dirRead);
      return withPromise(
        recorder,
        real.apply(target, thisArg, args),
        args,
        step,
        site,
        substitute && stepOf(substitute),
      );
    },
  });
  real.defineProperty(iterator, 'next', { value: next, writable: true, enumerable: false, configurable: true });
}

/** A substitute for an iterator step's value. */
function stepOf(substitute: Substitute): Substitute {
  return (result) => {
    const { done, value } = result as IteratorResult<unknown>;
    return done ? result : { done, value: substitute(value) };
  };
}
