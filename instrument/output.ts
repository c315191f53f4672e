import fs from 'node:fs';
import { relative, sep } from 'node:path';
import { Api } from '../tracer/apis.js';
import {
  ArgAt,
  ArrayBufferIsView,
  bytesOf,
  FunctionHasInstance,
  StringReplaceAll,
  StringSlice,
  StringStartsWith,
  TypedArrayBuffer,
  TypedArrayByteOffset,
  TypedArrayLength,
  Uint8Array,
  URL,
  URLHref,
  Utf8Decode,
} from '../tracer/primordials.js';
import { filePathOf } from '../tracer/stack.js';
import { family, type Native } from './patch.js';
import { absolutePath, real, SafeWeakMap, SafeWeakSet } from './real.js';
import type { Recorder } from './recorder.js';
import type { RootMask } from './root-mask.js';

/** How much of a write the trace keeps as text; the digest covers all of it. */
const HEAD = 64;

interface OutputSettings {
  readonly recorder: Recorder;
  readonly root: string;
  /** the process's one mask, which checkpoints share */
  readonly mask: RootMask;
}

/**
 * What the program shows the world, so a divergence in what it did can be told from one in what
 * it drew: stdout and stderr writes, files written whole (`writeFile`, `appendFile` in every
 * form), checkpoints, and (in the recorder) the exit code. Streams to files and `fs.write` on a
 * descriptor are not followed. What is recorded names the project root as ROOT_TOKEN (root-mask.ts).
 */
export const install = family<OutputSettings>('output', (patcher, { recorder, mask }) => {
  /** process.stdout and process.stderr, once created, and the API their writes are recorded as */
  const streams = new SafeWeakMap<object, number>();
  /** where their `write` comes from: patched once, for both streams */
  const owners = new SafeWeakSet<object>();
  const recordWrites = recordWrite(recorder, streams, mask);
  // process.stdout is created on first access; patch it then, so the hook does not create it early.
  for (const [name, api] of [
    ['stdout', Api.stdout],
    ['stderr', Api.stderr],
  ] as const) {
    patcher.getter(process, name, {
      apply(target, thisArg, args) {
        const stream = real.apply(target, thisArg, args) as NodeJS.WriteStream;
        if (streams.has(stream)) return stream;
        streams.set(stream, api);
        // The stream inherits `write` (Writable's, or Duplex's copy of it for a terminal or a pipe): it
        // is wrapped there, for these streams only, so the stream shows no property of the hook's. A
        // preload that put a `write` of its own on the stream calls the one it found: that one is wrapped.
        const owner = ownerOf(stream, 'write');
        if (owner !== null && !owners.has(owner)) {
          owners.add(owner);
          patcher.method(owner, 'write', recordWrites);
        }
        return stream;
      },
    });
  }
});

/**
 * The files written whole: the output family's part that waits for the program's fs (deferred.ts),
 * recording through `handler` (`fileWrites`), one for both halves.
 */
export const installFiles = family<ProxyHandler<Native>>('output files', (patcher, handler) => {
  // index loops: the family may install in the program's time (deferred.ts), under its built-ins
  const names = ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync'] as const;
  for (let i = 0; i < names.length; i++) patcher.method(fs, names[i]!, handler);
});

/** The promise forms of the two: apart, since reading `fs.promises` loads `node:fs/promises` (fs.ts). */
export const installFilePromises = family<ProxyHandler<Native>>('output file promises', (patcher, handler) => {
  patcher.method(fs.promises, 'writeFile', handler);
  patcher.method(fs.promises, 'appendFile', handler);
});

/** The object in `target`'s prototype chain, itself first, that holds `key`; null when none does. */
function ownerOf(target: object, key: PropertyKey): object | null {
  for (let object: object | null = target; object !== null; object = real.getPrototypeOf(object)) {
    if (real.getOwnPropertyDescriptor(object, key) !== undefined) return object;
  }
  return null;
}

function recordWrite(recorder: Recorder, streams: WeakMap<object, number>, mask: RootMask): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      const api = streams.get(thisArg as object);
      const chunk = ArgAt(args, 0);
      if (api !== undefined && recorder.on && (typeof chunk === 'string' || ArrayBufferIsView(chunk))) {
        try {
          const shown = typeof chunk === 'string' ? mask.text(chunk) : mask.bytes(chunk as ArrayBufferView);
          const head = typeof shown === 'string' ? StringSlice(shown, 0, HEAD) : textHead(shown);
          recorder.chunk(api, recorder.site(api), shown, head);
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_OUTPUT', error); // a bug of ours: the write itself is Node's to judge
        }
      }
      return real.apply(target, thisArg, args);
    },
  };
}

/**
 * Records a whole-file write at the call: the path (project-relative) and the data's digest. Node's
 * `appendFile` and `appendFileSync` write through `fs.writeFile` and `fs.writeFileSync`, the
 * patched exports: a write inside a recorded one, of the same file and data, is the same write.
 */
export function fileWrites({ recorder, root, mask }: OutputSettings): ProxyHandler<Native> {
  let outerFile: unknown;
  let outerData: unknown;
  let writing = false;
  return {
    apply(target, thisArg, args) {
      const file = ArgAt(args, 0);
      const data = ArgAt(args, 1);
      if (writing && file === outerFile && data === outerData) return real.apply(target, thisArg, args);
      if (
        recorder.on &&
        (typeof file === 'string' || FunctionHasInstance(URL, file)) &&
        (typeof data === 'string' || ArrayBufferIsView(data))
      ) {
        try {
          const path = displayPath(file as string | URL, root);
          const shown = typeof data === 'string' ? mask.text(data) : mask.bytes(data as ArrayBufferView);
          if (path !== null) recorder.chunk(Api.fileWrite, recorder.site(Api.fileWrite), shown, path);
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_OUTPUT', error);
        }
      }
      const wasWriting = writing;
      const wasFile = outerFile;
      const wasData = outerData;
      writing = true;
      outerFile = file;
      outerData = data;
      try {
        return real.apply(target, thisArg, args);
      } finally {
        writing = wasWriting;
        outerFile = wasFile;
        outerData = wasData;
      }
    },
  };
}

/**
 * The path written to, project-relative; null for a URL that names no file, and for a relative
 * path once the working directory is gone: Node refuses both writes with its own error.
 */
function displayPath(file: string | URL, root: string): string | null {
  const path = typeof file === 'string' ? file : fileURLPath(URLHref(file));
  if (path === null) return null;
  let absolute: string;
  try {
    absolute = absolutePath(path);
  } catch {
    return null; // process.cwd() throws once the directory it names was removed
  }
  const rel = relative(root, absolute);
  const shown = StringStartsWith(rel, '..') ? absolute : rel;
  return sep === '/' ? shown : StringReplaceAll(shown, sep, '/');
}

/** What a `file:` URL names; null for another scheme. */
function fileURLPath(href: string): string | null {
  return StringStartsWith(href, 'file:') ? filePathOf(href) : null;
}

/** The first HEAD bytes of a view, as text. */
function textHead(view: ArrayBufferView): string {
  const bytes = bytesOf(view);
  const length = TypedArrayLength(bytes);
  return Utf8Decode(length > HEAD ? new Uint8Array(TypedArrayBuffer(bytes), TypedArrayByteOffset(bytes), HEAD) : bytes);
}
