/**
 * `node --import detdrift/register app.js`: records the program's clock and entropy calls into
 * DETDRIFT_TRACE. Node awaits an `--import` module before it runs the program, so every family is
 * in place by then.
 *
 * The hook's code is one script, bundle.js (scripts/bundle-hook.mjs), compiled here with V8's code
 * cache: compiling it, and the functions start-up calls, cost about 10 ms of every start, and the
 * cache's bytecode, made once per bundle and Node version, saves most of it. The cache is a file in
 * DETDRIFT_CODE_CACHE (`off`: none), by default a directory of this user's own in the system's
 * temporary directory; a directory another user could write to is never read. The bundle's SHA-256
 * names the file: V8 checks a cache against the length of its source only, and would run the
 * bytecode of a same-length bundle from before a rebuild.
 *
 * Everything here runs before the program and takes Node's built-ins as they are then; the cache is
 * written with the functions saved at the top, before the hook patched `fs`, so it is not recorded.
 */
const { closeSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } = process.getBuiltinModule('node:fs');
const { hash } = process.getBuiltinModule('node:crypto');
const { tmpdir } = process.getBuiltinModule('node:os');
const { join, resolve } = process.getBuiltinModule('node:path');
const { Script } = process.getBuiltinModule('node:vm');

const CACHE_VAR = 'DETDRIFT_CODE_CACHE';
const BUNDLE = new URL('./bundle.js', import.meta.url);

/** What bundle.js evaluates to: given its own URL, it hands back the hook's `start`. */
type Bundle = (url: string) => () => Promise<unknown>;

const source = readBundle();
if (source === null) {
  // tsc alone built dist/: its modules, one by one, as hook.ts imports them
  const { start } = await import('./hook.js');
  await start();
} else {
  const cacheFile = cachePath(source);
  const cachedData = cacheFile === null ? undefined : readCache(cacheFile);
  const script = new Script(source.toString('utf8'), { filename: BUNDLE.href, cachedData });
  const start = (script.runInThisContext() as Bundle)(BUNDLE.href);
  await start();
  // made after start-up, the cache holds the bytecode of every function start-up compiled too
  if (cacheFile !== null && (cachedData === undefined || script.cachedDataRejected === true)) writeCache(cacheFile, script.createCachedData());
}

/** The bundle's bytes, or null where `npm run build` has not made one. */
function readBundle(): Buffer | null {
  try {
    return readFileSync(BUNDLE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The cache file for this bundle on this Node, or null without a directory safe to use. */
function cachePath(bundle: Buffer): string | null {
  const setting = process.env[CACHE_VAR];
  if (setting === 'off') return null;
  const uid = process.getuid?.();
  const dir = setting ? resolve(setting) : join(tmpdir(), uid === undefined ? 'detdrift-code-cache' : `detdrift-code-cache-${uid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!ownDirectory(dir, uid)) return null;
  } catch {
    return null;
  }
  return join(dir, `${hash('sha256', bundle).slice(0, 32)}-${process.version}-${process.arch}.cache`);
}

/**
 * A directory, not a link, that only this user can write to: bytecode another user could replace
 * would run as this one. Windows keeps a temporary directory per user and has no uid to compare.
 */
function ownDirectory(dir: string, uid: number | undefined): boolean {
  const stats = lstatSync(dir);
  if (!stats.isDirectory()) return false;
  return uid === undefined || (stats.uid === uid && (stats.mode & 0o022) === 0);
}

/** The cache's bytes, or undefined when there is none yet (or it cannot be read: start without). */
function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache under a name of this process's, then renames it into place: processes starting
 * together each write a whole file, and a reader never sees half of one. A cache that cannot be
 * written is left unwritten: the next start compiles again.
 */
function writeCache(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}`;
  try {
    const fd = openSync(partial, 'w', 0o600);
    try {
      for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, file);
  } catch {
    try {
      unlinkSync(partial);
    } catch {
      // never created
    }
  }
}

export {};
