/**
 * The folder of this user's that holds detdrift's compiled code: the hook's V8 code cache
 * (register.cts) and Node's compile cache of the CLI's modules (cli/entry.ts). DETDRIFT_CODE_CACHE
 * names it (an absolute path; `off`: none); by default it is a folder of this user's own in the
 * system's temporary directory. A folder another user could write to is never used: bytecode
 * another user could replace would run as this one. Its caches and lockfile memos are pruned when
 * a cache is written (code-cache-prune.cts); Node manages `cli/`. CommonJS and builtins only, taken with
 * `process.getBuiltinModule`: the hook's preload requires it before anything else of the hook loads.
 */
import type { Stats } from 'node:fs';
import type { VARS } from '../tracer/settings.js';

const { lstatSync, mkdirSync } = process.getBuiltinModule('node:fs');
const { isAbsolute, join } = process.getBuiltinModule('node:path');

// Typed as the contract's name, which it must be; not imported: this runs before the bundle loads.
const CACHE_VAR: typeof VARS.codeCache = 'DETDRIFT_CODE_CACHE';
// Read before the hook patches the process family: a read after it would be recorded.
const UID = process.getuid?.();

/**
 * The folder, made if missing, or null without one safe to use. A relative DETDRIFT_CODE_CACHE is
 * not used: each process would find it in its own working directory, and make it there, where the
 * program would see it.
 */
export function codeCacheDir(): string | null {
  const setting = process.env[CACHE_VAR];
  if (setting === 'off' || (setting && !isAbsolute(setting))) return null;
  const dir =
    setting || join(temporaryDirectory(), UID === undefined ? 'detdrift-code-cache' : `detdrift-code-cache-${UID}`);
  try {
    // looked at first: a mkdir that fails with EEXIST, every start but the first, costs an exception
    let stats = lstatSync(dir, { throwIfNoEntry: false });
    if (stats === undefined) {
      try {
        // not recursive: Node's recursive mkdir can spin forever under /proc
        mkdirSync(dir, 0o700);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
      }
      stats = lstatSync(dir);
    }
    return ours(stats, true) ? dir : null;
  } catch {
    return null;
  }
}

/**
 * `os.tmpdir()`, without loading node:os at every start, which `node -e 0` does not (150 µs): the
 * first of TMPDIR, TMP and TEMP that is set, else /tmp, without a trailing slash; on Windows TEMP,
 * TMP, else the system root's `temp`, without a trailing backslash unless it is a drive's root.
 * Node reads none of them in a setuid or setgid process, and neither does this; on Linux Node also
 * ignores them where the kernel marks the process secure (AT_SECURE: a binary given capabilities),
 * which this cannot see: there it may pick another folder, which `ours` still checks.
 */
function temporaryDirectory(): string {
  const env = process.env;
  if (process.platform === 'win32') {
    const dir = env.TEMP || env.TMP || `${env.SystemRoot || env.windir}\\temp`;
    return dir.length > 1 && dir.endsWith('\\') && !dir.endsWith(':\\') ? dir.slice(0, -1) : dir;
  }
  const secure = UID !== undefined && (UID !== process.geteuid?.() || process.getgid?.() !== process.getegid?.());
  const dir = (!secure && (env.TMPDIR || env.TMP || env.TEMP)) || '/tmp';
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir;
}

/**
 * Whether `stats` are of a directory (or a regular file) of this user's that no one else can write
 * to. Windows keeps a temporary directory per user and has no uid to compare.
 */
export function ours(stats: Stats, directory: boolean): boolean {
  if (directory ? !stats.isDirectory() : !stats.isFile()) return false;
  return UID === undefined || (stats.uid === UID && (stats.mode & 0o022) === 0);
}
