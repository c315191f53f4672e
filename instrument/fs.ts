import fs from 'node:fs';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import type { RawFrame } from '../tracer/stack.js';
import { entryName, guard, patchDir, withCallback, withPromise, type RecordResult } from './fs-dir.js';
import { family, type Native } from './patch.js';
import { real } from './real.js';
import type { Recorder } from './recorder.js';

type Form = 'callback' | 'sync' | 'promise';

// Node's own modules that call fs through its exports (cp, rm, glob, recursive watch, realpath,
// Dirent types, the loaders, http2, the REPL). Generic forwarders (promisify, nextTick) stay recorded.
const NODE_FS_CALLER = /^node:(?:fs$|repl$|internal\/(?:fs|modules|http2|repl|test_runner|watch_mode|main|source_map|debugger)\/)/;
const rawFrames = (_error: Error, frames: RawFrame[]): RawFrame[] => frames;

/**
 * Directory orders and stat times: `readdir` in every form (values: the names in the order the
 * program got them), `opendir` and the reads of the `Dir` it returns, and `stat`/`lstat`/`fstat`
 * (value: `mtimeMs`). An event is a result the program got: a failed call records nothing. The
 * site is taken at the call, the value when the result is known. Calls from Node's own modules
 * (`fs.cp`, `fs.rm`, `fs.glob`, `fs.realpath`...) are not the program's and are not recorded.
 */
export const install = family<Recorder>('fs', (patcher, recorder) => {
  const promises = fs.promises as unknown as Record<string, Native>;
  const exports = fs as unknown as Record<string, Native>;
  const dirs = new WeakSet<object>();
  const patch = (target: Record<string, Native>, key: string, form: Form, api: number, record: RecordResult) =>
    patcher.method(target, key, handler(recorder, form, api, record));

  const listing = (api: number): RecordResult => (site, names, args) => {
    const list = names as readonly unknown[];
    const copy: string[] = []; // the program may sort its array before the trace is flushed
    for (let i = 0; i < list.length; i++) copy[i] = entryName(list[i], args[0]);
    recorder.list(api, site, copy);
  };
  patch(exports, 'readdir', 'callback', Api.readdir, listing(Api.readdir));
  patch(exports, 'readdirSync', 'sync', Api.readdirSync, listing(Api.readdirSync));
  patch(promises, 'readdir', 'promise', Api.readdirPromise, listing(Api.readdirPromise));

  // The open is an event without a value; its Dir's reads are recorded from then on.
  const opened = (api: number): RecordResult => (site, dir) => {
    dirs.add(dir as object);
    recorder.number(api, Tag.none, site, 0);
  };
  patch(exports, 'opendir', 'callback', Api.opendir, opened(Api.opendir));
  patch(exports, 'opendirSync', 'sync', Api.opendirSync, opened(Api.opendirSync));
  patch(promises, 'opendir', 'promise', Api.opendirPromise, opened(Api.opendirPromise));
  patchDir(patcher, recorder, dirs);

  // `statSync(path, { throwIfNoEntry: false })` gives undefined: an event without a value.
  const mtime = (api: number): RecordResult => (site, stats) => {
    if (stats === undefined) recorder.number(api, Tag.none, site, 0);
    else recorder.number(api, Tag.f64, site, real.Number((stats as fs.Stats | fs.BigIntStats).mtimeMs));
  };
  for (const name of ['stat', 'lstat', 'fstat']) {
    patch(exports, name, 'callback', Api.stat, mtime(Api.stat));
    patch(exports, `${name}Sync`, 'sync', Api.statSync, mtime(Api.statSync));
    if (name !== 'fstat') patch(promises, name, 'promise', Api.statPromise, mtime(Api.statPromise));
  }
});

/** The Proxy handler of one form: the program's call passes through untouched, then its result is recorded. */
function handler(recorder: Recorder, form: Form, api: number, record: RecordResult): ProxyHandler<Native> {
  const self: ProxyHandler<Native> = {
    apply(target, thisArg, args) {
      // Node validates the callback as `typeof options === 'function' ? options : callback`.
      const index = typeof args[1] === 'function' ? 1 : 2;
      if (!recorder.on || (form === 'callback' && typeof args[index] !== 'function') || !fromProgram(recorder, self.apply!)) {
        return real.apply(target, thisArg, args);
      }
      const site = recorder.site(api);
      if (form === 'callback') return withCallback(recorder, target, thisArg, args, index, record, site);
      if (form === 'promise') return withPromise(recorder, real.apply(target, thisArg, args), args, record, site);
      const value = real.apply(target, thisArg, args);
      if (recorder.on) guard(recorder, () => record(site, value, args));
      return value;
    },
  };
  return self;
}

/**
 * False when the call comes from Node's own fs use rather than the program. The first frame with a
 * file (builtins like `Array.prototype.map` have none) above `trap` decides. One shallow capture per
 * call: cheap next to the system call it guards. A failure stops recording, never the program.
 */
function fromProgram(recorder: Recorder, trap: Native): boolean {
  try {
    const file = callerFile(trap);
    return file === null || !NODE_FS_CALLER.test(file);
  } catch (error) {
    recorder.fail('ERR_DETDRIFT_STACK', error);
    return false;
  }
}

function callerFile(trap: Native): string | null {
  const { Error } = real;
  const limit = Error.stackTraceLimit;
  const prepare = Error.prepareStackTrace;
  const holder: { stack?: RawFrame[] } = {};
  let frames: RawFrame[] | undefined;
  try {
    Error.stackTraceLimit = 3;
    Error.prepareStackTrace = rawFrames;
    real.captureStackTrace(holder, trap);
    frames = holder.stack; // V8 formats on first access: read it while rawFrames is in place
  } finally {
    Error.stackTraceLimit = limit;
    Error.prepareStackTrace = prepare;
  }
  if (!Array.isArray(frames)) return null;
  for (let i = 0; i < frames.length; i++) {
    const file = frames[i]!.getFileName();
    if (file) return file;
  }
  return null;
}
