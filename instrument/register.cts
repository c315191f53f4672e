/**
 * `node --require detdrift/register app.js` (or `--import`, register.ts): records the program's
 * clock and entropy calls into DETDRIFT_TRACE. A CommonJS preload, so that loading the hook leaves
 * alone how Node runs the program: any `--import` makes Node 20 to 24 run the entry point through
 * the ESM loader, where a CommonJS loader's hooks (ts-node's `require.extensions`) never see it.
 * Everything here runs synchronously, so every family is in place before the program starts.
 *
 * The hook's code is one script, bundle.js (scripts/bundle-hook.mjs), compiled here with V8's code
 * cache: compiling it, and the functions start-up calls, cost about 10 ms of every start, and the
 * cache's bytecode, made once per bundle, Node version and set of flags, saves most of it. The
 * cache is a file in the folder code-cache-dir.cts names (DETDRIFT_CODE_CACHE, or this user's own in
 * the system's temporary directory); a file another user could write to is never read. The bundle
 * file's identity (inode, size, modification and change times) names the file: V8 checks a cache
 * against the length of its source only, and would run the
 * bytecode of a same-length bundle from before a rebuild, which writes the file anew. A start that
 * writes a cache also prunes the folder (code-cache-prune.cts: files of ours unchanged for a week,
 * then the oldest caches beyond 64 and memos beyond 1,024); a start that reads one does no more.
 * Nothing here loads node:crypto: a program that never does would pay a quarter of Node's own
 * start-up for it.
 *
 * Everything here runs before the program and takes Node's built-ins as they are then; the cache is
 * written after the hook patched them, with functions and values read at the top: nothing of it is
 * recorded.
 */
import { CHECKSUM_BYTES, checksum, hasZeroBlock } from './code-cache-checksum.cjs';
import { codeCacheDir, ours } from './code-cache-dir.cjs';

const { closeSync, constants, fstatSync, openSync, readFileSync, readSync, renameSync, unlinkSync, writeSync } =
  process.getBuiltinModule('node:fs');
const { join } = process.getBuiltinModule('node:path');
const { pathToFileURL } = process.getBuiltinModule('node:url');
const { Script } = process.getBuiltinModule('node:vm');

const BUNDLE = pathToFileURL(join(__dirname, 'bundle.js'));
// Read before the hook patches the process family: a read after it would be recorded.
const PID = process.pid;

/** What bundle.js evaluates to: given its own URL, it hands back the hook's `start`. */
type Bundle = (url: string) => (first: boolean) => unknown;

/**
 * Whether nothing can have imported a builtin as an ES module before the hook: no CommonJS module
 * was loaded before this file (a `--require` preload before it would be in the cache, and so would
 * one that required an ES module), and the process has no ES module preloads at all (`--import`,
 * `--loader`), and it was not imported (register.js). Then the hook listens to module loads, not
 * resolutions (deferred.ts). An ES module preload after it would be harmless, but telling after
 * from before means parsing NODE_OPTIONS: any counts. (`module.parent` would tell Node's preloading
 * apart, but reading it is deprecated: under --pending-deprecation the program would get a warning.)
 */
function firstPreload(): boolean {
  // imported through register.js, by an --import or by the program's own ES module
  if ((globalThis as Record<symbol, unknown>)[Symbol.for('detdrift.register.imported')] === true) return false;
  const loaded = Object.keys(require.cache);
  if (loaded.length !== 1 || loaded[0] !== __filename) return false;
  const esmPreload = (option: string) =>
    option.includes('--import') || option.includes('--loader') || option.includes('--experimental-loader');
  return !esmPreload(process.env.NODE_OPTIONS ?? '') && !process.execArgv.some(esmPreload);
}

// Asked before this file requires anything itself (the pruning, tsc's modules).
const FIRST = firstPreload();

/** The bundle's text, and what tells this file apart from any other bundle.js that was ever there. */
interface BundleFile {
  readonly source: Buffer;
  readonly identity: string;
}

try {
  load();
} catch (error) {
  // The hook's code could not be read or compiled (a permission model that does not let the program
  // read it, say): said as start() says its own failures, and the program runs unrecorded.
  try {
    writeSync(
      2,
      `detdrift: ERR_DETDRIFT_START: cannot load the hook: ${(error as Error)?.message ?? String(error)} (not recording; the program continues)\n`,
    );
  } catch {
    // stderr is gone: nothing left to tell
  }
}

function load(): void {
  const bundle = readBundle();
  if (bundle === null) {
    // tsc alone built dist/: its modules, one by one, as hook.ts imports them (require(esm))
    const require = process.getBuiltinModule('node:module').createRequire(__filename);
    // not first: those modules import builtins as ES modules themselves, before the hook listens
    (require('./hook.js') as { start: (first: boolean) => unknown }).start(false);
    return;
  }
  const cacheFile = cachePath(bundle.identity);
  const cachedData = cacheFile === null ? undefined : readCache(cacheFile);
  // ASCII (scripts/bundle-hook.mjs): Latin-1 is a copy, UTF-8 a decoding
  const script = new Script(bundle.source.toString('latin1'), { filename: BUNDLE.href, cachedData });
  const writing = cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true);
  // Known before start-up: a start that writes the cache loads the pruning now, while Node's
  // built-ins are still the real ones; a start that reads it loads nothing more.
  const prune = writing ? loadPrune() : undefined;
  const start = (script.runInThisContext() as Bundle)(BUNDLE.href);
  start(FIRST);
  // made after start-up, the cache holds the bytecode of every function start-up compiled too
  if (writing && writeCache(cacheFile, script.createCachedData())) prune?.(cacheFile);
}

/** The pruning of the cache's folder, or undefined where it cannot be loaded: the folder keeps its files. */
function loadPrune(): ((written: string) => void) | undefined {
  try {
    return (require('./code-cache-prune.cjs') as typeof import('./code-cache-prune.cjs')).pruneCodeCache;
  } catch {
    return undefined;
  }
}

/** The bundle, or null where `npm run build` has not made one. */
function readBundle(): BundleFile | null {
  let fd: number;
  try {
    fd = openSync(BUNDLE, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    // every write of the file moves its change time, which no program can set back
    const { ino, size, mtimeMs, ctimeMs } = fstatSync(fd);
    return { source: readFileSync(fd), identity: `${ino}-${size}-${mtimeMs}-${ctimeMs}` };
  } finally {
    closeSync(fd);
  }
}

/**
 * The cache file for this bundle on this Node with these flags (V8 rejects a cache made under
 * other flags: processes started with different ones would each write it again), or null without
 * a directory safe to use.
 */
function cachePath(bundle: string): string | null {
  const dir = codeCacheDir();
  if (dir === null) return null;
  const flags = fnv1a(`${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS ?? ''}`);
  // code-cache-prune.cts knows this name
  return join(dir, `${fnv1a(bundle)}-${flags}-${process.version}-${process.arch}.cache`);
}

/**
 * The cache's V8 data, or undefined when there is none yet or it cannot be trusted: not a regular
 * file of ours (opened without following a link or waiting on a FIFO), not the bytes its checksum
 * says, or holding a zeroed block. The next start then compiles and writes it again.
 */
function readCache(file: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!ours(stats, false) || stats.size <= CHECKSUM_BYTES) return undefined;
    const bytes = Buffer.alloc(stats.size);
    for (let at = 0, read = -1; at < bytes.length && read !== 0; at += read)
      read = readSync(fd, bytes, at, bytes.length - at, at);
    const data = bytes.subarray(CHECKSUM_BYTES);
    if (!checksum(data).equals(bytes.subarray(0, CHECKSUM_BYTES))) return undefined;
    return hasZeroBlock(data) ? undefined : data;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes the cache, its checksum first, under a name of this process's, then renames it into place:
 * processes starting together each write a whole file, and a reader never sees half of one (a
 * torn one fails its checksum). A cache that cannot be written is left unwritten: the next start
 * compiles again.
 */
function writeCache(file: string, data: Buffer): boolean {
  const partial = `${file}.${PID}`;
  try {
    const fd = openSync(partial, 'w', 0o600);
    try {
      writeAll(fd, checksum(data));
      writeAll(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
    return true;
  } catch {
    try {
      unlinkSync(partial);
    } catch {
      // never created
    }
    return false;
  }
}

function writeAll(fd: number, bytes: Buffer): void {
  for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
}

/** FNV-1a of a string's UTF-16 code units, as 8 hex digits: tells flags and bundles apart in a file name. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return (hash >>> 0).toString(16).padStart(8, '0');
}
