import fs from 'node:fs';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { ArgAt, Number, StringStartsWith } from '../tracer/primordials.js';
import {
  entryName,
  guard,
  patchDir,
  substituted,
  withCallback,
  withPromise,
  type DirOrder,
  type RecordResult,
  type Substitute,
} from './fs-dir.js';
import { patchMkdtemp, patchMkdtempPromises } from './fs-temp.js';
import { family, type Native, type Patcher } from './patch.js';
import { captureFrames, real, SafeWeakMap, SafeWeakSet } from './real.js';
import type { Recorder } from './recorder.js';

type Form = 'callback' | 'sync' | 'promise';

// Node's own modules that call fs through its exports (cp, rm, glob, recursive watch, realpath,
// Dirent types, the loaders, http2, the REPL). Generic forwarders (promisify, nextTick) stay recorded.
// Node 20, 22 and 24 call stat, lstat, readdir (each form) and promises.opendir so, statSync from the
// recursive watcher's event callbacks too: no form can skip the check, whose stack capture is most
// of what a hooked statSync costs (about 2.5 µs on Node 20, 1 µs on Node 24).
const NODE_FS_MODULES = ['node:fs', 'node:repl'];
const NODE_FS_INTERNALS = [
  'node:internal/fs/',
  'node:internal/modules/',
  'node:internal/http2/',
  'node:internal/repl/',
  'node:internal/test_runner/',
  'node:internal/watch_mode/',
  'node:internal/main/',
  'node:internal/source_map/',
  'node:internal/debugger/',
];

/**
 * Whether `file` is Node's own fs use: node:fs and node:repl themselves, or the internals that list
 * directories for Node (module loading, the test runner, watch mode...). Compared as strings: a
 * regular expression's match would set the program's RegExp.lastMatch and the other statics.
 */
function nodeFsCaller(file: string): boolean {
  for (let i = 0; i < NODE_FS_MODULES.length; i++) if (file === NODE_FS_MODULES[i]) return true;
  for (let i = 0; i < NODE_FS_INTERNALS.length; i++) if (StringStartsWith(file, NODE_FS_INTERNALS[i]!)) return true;
  return false;
}

/**
 * What the family's two halves share: the program's Dirs, which any form of `opendir` opens and
 * `Dir.prototype`'s patched reads look up, and in perturb mode (dir-order) the order each hands out.
 */
export interface FsState {
  readonly recorder: Recorder;
  readonly dirs: WeakSet<object>;
  readonly orders: WeakMap<object, DirOrder>;
}

export function fsState(recorder: Recorder): FsState {
  return { recorder, dirs: new SafeWeakSet<object>(), orders: new SafeWeakMap<object, DirOrder>() };
}

/**
 * Directory orders and stat times: `readdir` in every form (values: the names in the order the
 * program got them), `opendir` and the reads of the `Dir` it returns, and `stat`/`lstat`/`fstat`
 * (value: `mtimeMs`); `mkdtemp` is fs-temp.ts's. An event is a result the program got: a failed
 * call records nothing. The site is taken at the call, the value when the result is known. Calls
 * from Node's own modules (`fs.cp`, `fs.rm`, `fs.glob`, `fs.realpath`...) are not the program's
 * and are not recorded.
 * This half patches the callback and sync forms and `Dir`; `installPromises`, the promise forms.
 */
export const install = family<FsState>('fs', (patcher, state) => {
  const exports = fs as unknown as Record<string, Native>;
  const { patch, listing, opened, mtime } = patching(patcher, state);
  patch(exports, 'readdir', 'callback', listing(Api.readdir));
  patch(exports, 'readdirSync', 'sync', listing(Api.readdirSync));
  patch(exports, 'opendir', 'callback', opened(Api.opendir));
  patch(exports, 'opendirSync', 'sync', opened(Api.opendirSync));
  patchDir(patcher, state.recorder, state.dirs, state.orders);
  // index loops: the family may install in the program's time (deferred.ts), under its built-ins
  const stats = ['stat', 'lstat', 'fstat'];
  for (let i = 0; i < stats.length; i++) {
    patch(exports, stats[i]!, 'callback', mtime(Api.stat));
    patch(exports, `${stats[i]}Sync`, 'sync', mtime(Api.statSync));
  }
  patchMkdtemp(patcher, state.recorder, fromProgram);
});

/**
 * The promise forms, `fs.promises` (which is `node:fs/promises`): apart, since reading it loads
 * `node:fs/promises` and what it imports (readline, the REPL's history, the watchers), which a
 * program that requires `node:fs` and never its promises does not. Their Dirs are read through
 * the other half's patches.
 */
export const installPromises = family<FsState>('fs promises', (patcher, state) => {
  const promises = fs.promises as unknown as Record<string, Native>;
  const { patch, listing, opened, mtime } = patching(patcher, state);
  patch(promises, 'readdir', 'promise', listing(Api.readdirPromise));
  patch(promises, 'opendir', 'promise', opened(Api.opendirPromise));
  patch(promises, 'stat', 'promise', mtime(Api.statPromise));
  patch(promises, 'lstat', 'promise', mtime(Api.statPromise));
  patchMkdtempPromises(patcher, state.recorder, fromProgram);
});

/** What a form records, for one API, and (listings, in perturb mode) how it reorders the result. */
interface Recording {
  readonly api: number;
  readonly record: RecordResult;
  readonly perturb?: Perturb | null;
}

/** What both halves record, and `patch`, which wraps one form of one function to record it. */
function patching(patcher: Patcher, { recorder, dirs, orders }: FsState) {
  // Perturb mode (dir-order): listings reach the program in another order, and so do Dir reads.
  const perturber = recorder.perturber?.variant('dir-order') ? recorder.perturber : null;
  const reorder =
    perturber &&
    ((args: readonly unknown[]): Substitute =>
      (names) =>
        perturber.order(names as unknown[], (entry) => entryName(entry, args[0])));
  const patch = (target: Record<string, Native>, key: string, form: Form, { api, record, perturb }: Recording) =>
    patcher.methodWhenLoaded(target, key, handler(recorder, form, api, record, perturb ?? undefined));

  const listing = (api: number): Recording => ({
    api,
    record: (site, result, args) => {
      const list = result as readonly unknown[];
      const names: string[] = []; // as the trace spells them: a Dirent by its name, a Buffer as text
      for (let i = 0; i < list.length; i++) names[i] = entryName(list[i], args[0]);
      recorder.list(api, site, names);
    },
    perturb: reorder,
  });

  // The open is an event without a value; its Dir's reads are recorded from then on.
  const opened = (api: number): Recording => ({
    api,
    record: (site, dir, args) => {
      dirs.add(dir as object);
      if (perturber)
        orders.set(dir as object, {
          path: ArgAt(args, 0),
          options: typeof ArgAt(args, 1) === 'object' ? ArgAt(args, 1) : undefined,
          entries: null,
          at: 0,
        });
      recorder.number(api, Tag.none, site, 0);
    },
  });

  // `statSync(path, { throwIfNoEntry: false })` gives undefined: an event without a value.
  const mtime = (api: number): Recording => ({
    api,
    record: (site, stats) => {
      if (stats === undefined) recorder.number(api, Tag.none, site, 0);
      else recorder.number(api, Tag.f64, site, Number((stats as fs.Stats | fs.BigIntStats).mtimeMs));
    },
  });
  return { patch, listing, opened, mtime };
}

/** Perturb mode: for one call's arguments, what the program gets instead of the real result. */
type Perturb = (args: readonly unknown[]) => Substitute;

/**
 * The Proxy handler of one form: the program's call passes through untouched, then its result is
 * recorded (in perturb mode, after `perturb` put it in another order).
 */
function handler(
  recorder: Recorder,
  form: Form,
  api: number,
  record: RecordResult,
  perturb?: Perturb,
): ProxyHandler<Native> {
  const self: ProxyHandler<Native> = {
    apply(target, thisArg, args) {
      // Node validates the callback as `typeof options === 'function' ? options : callback`.
      const index = typeof ArgAt(args, 1) === 'function' ? 1 : 2;
      if (
        !recorder.on ||
        (form === 'callback' && typeof ArgAt(args, index) !== 'function') ||
        !fromProgram(recorder, self.apply!)
      ) {
        return real.apply(target, thisArg, args);
      }
      const site = recorder.site(api);
      const substitute = perturb?.(args);
      if (form === 'callback') return withCallback(recorder, target, thisArg, args, index, record, site, substitute);
      if (form === 'promise')
        return withPromise(recorder, real.apply(target, thisArg, args), args, record, site, substitute);
      let value = real.apply(target, thisArg, args);
      if (!recorder.on) return value;
      if (substitute) value = substituted(recorder, substitute, value);
      guard(recorder, () => record(site, value, args));
      return value;
    },
  };
  return self;
}

/**
 * False when the call comes from Node's own fs use rather than the program. The first frame with a
 * file (builtins like `Array.prototype.map` have none) above `trap` decides. One shallow capture per
 * call: cheap next to the system call it guards. A failure costs the sites, never the program.
 */
function fromProgram(recorder: Recorder, trap: Native): boolean {
  try {
    const file = callerFile(trap);
    return file === null || !nodeFsCaller(file);
  } catch (error) {
    recorder.lostStacks(error); // a frozen Error: reported once; an unknown caller counts as the program
    return true;
  }
}

/** The first file among the three frames above `trap` (builtins like `Array.prototype.map` have none). */
function callerFile(trap: Native): string | null {
  const frames = captureFrames(3, trap);
  if (frames === null) return null;
  for (let i = 0; i < frames.length; i++) {
    const file = frames[i]!.getFileName();
    if (file) return file;
  }
  return null;
}
