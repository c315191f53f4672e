/**
 * Keeps the code-cache folder (code-cache-dir.cts) bounded: every rebuilt or upgraded bundle, Node
 * version and set of flags adds a cache of about 160 KB, and every lockfile path a memo, that no
 * start reads again. Run by a start that has just written a cache (register.cts), the rare path,
 * never by one that reads it. register.cts requires this file only then, before the hook patches
 * anything: the built-ins taken here are the real ones, and nothing done here is recorded.
 */
import { ours } from './code-cache-dir.cjs';

const { lstatSync, readdirSync, unlinkSync } = process.getBuiltinModule('node:fs');
const { basename, dirname, sep } = process.getBuiltinModule('node:path');

/**
 * A file of ours unchanged for longer is removed: a week keeps what a user starts each working week,
 * however rarely. A cache in use is read, never written again, so its modification time says when
 * it was made, not when it was last used (most mounts keep no access times): a cache another
 * install still uses goes too, and costs that install one compile and write, about 10 ms, once a
 * week (a memo, one digest of its lockfile). A start reading it meanwhile has it open already; on
 * Windows the removal fails and the file stays. A partial file this old is a crashed writer's.
 */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;
/**
 * Whole caches kept at most, the newest: about 10 MB. More than the installs, Node versions and sets
 * of flags one user starts within a week, so the age rule does the pruning, and this bounds a week
 * of rebuilds.
 */
const MAX_CACHES = 64;
/**
 * Lockfile memos kept at most, the newest: one per lockfile path started within the week, so a
 * user's projects fit, and a machine whose tests make projects by the thousand (this repository's
 * own suite) keeps a few hundred KB of them, not every one of the week.
 */
const MAX_MEMOS = 1024;
/**
 * What a name this folder's writers give (register.cts, lockfile-memo.ts) is: a cache
 * (`<hex8>-<hex8>-v<node version>-<arch>.cache`) or a lockfile memo (`lockfile-<hex16>`), partial
 * with the `.<pid>` of its writer; null for any other name: DETDRIFT_CODE_CACHE may name a folder
 * that holds other files too. Read by hand: a regular expression's match would leave the program,
 * which starts right after, a RegExp.lastMatch of the hook's.
 */
function kindOf(name: string): { readonly cache: boolean; readonly partial: boolean } | null {
  const dot = name.lastIndexOf('.');
  const partial = dot > 0 && digits(name.slice(dot + 1));
  const whole = partial ? name.slice(0, dot) : name;
  if (whole.startsWith('lockfile-')) return hex(whole.slice(9), 16) ? { cache: false, partial } : null;
  if (!whole.endsWith('.cache') || !hex(whole.slice(0, 8), 8) || whole[8] !== '-') return null;
  if (!hex(whole.slice(9, 17), 8) || !whole.startsWith('-v', 17) || !digits(whole.charAt(19))) return null;
  // then `[\w.+-]*` up to `.cache`: the rest of the version, and the architecture
  for (const char of whole.slice(20, -'.cache'.length)) if (!wordish(char)) return null;
  return { cache: true, partial };
}

function digits(text: string): boolean {
  return text.length > 0 && [...text].every((char) => char >= '0' && char <= '9');
}

function hex(text: string, length: number): boolean {
  return (
    text.length === length && [...text].every((char) => (char >= '0' && char <= '9') || (char >= 'a' && char <= 'f'))
  );
}

function wordish(char: string): boolean {
  return digits(char) || (char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z') || '_.+-'.includes(char);
}

interface Entry {
  readonly path: string;
  readonly mtimeMs: number;
  /** a whole cache, which counts towards MAX_CACHES */
  readonly cache: boolean;
  /** a whole lockfile memo, which counts towards MAX_MEMOS */
  readonly memo: boolean;
}

/**
 * Removes the stale files of ours beside `written`, the cache just written, then the oldest whole
 * caches beyond MAX_CACHES and the oldest memos beyond MAX_MEMOS. `written` stays, and its
 * modification time is the folder's "now" (no clock is read: the hook may have replaced it). Never
 * follows a link, never descends into a folder (Node's compile cache of the CLI is `cli/`), never
 * throws: what cannot be removed stays.
 */
export function pruneCodeCache(written: string): void {
  const dir = dirname(written);
  const kept = basename(written);
  try {
    const names = readdirSync(dir);
    const entries: Entry[] = [];
    let now: number | undefined;
    for (const name of names) {
      const kind = kindOf(name);
      if (kind === null) continue;
      // not path.join: it normalizes character by character, in code V8 has not compiled yet, about
      // 100,000 instructions a file (a fifth of the cost of pruning a folder of 800)
      const path = `${dir}${sep}${name}`;
      const stats = lstatSync(path, { throwIfNoEntry: false });
      if (stats === undefined || !ours(stats, false)) continue;
      if (name === kept) now = stats.mtimeMs;
      else
        entries.push({
          path,
          mtimeMs: stats.mtimeMs,
          cache: kind.cache && !kind.partial,
          memo: !kind.cache && !kind.partial,
        });
    }
    // the cache just written is gone already: another start replaced it, and prunes in its turn
    if (now === undefined) return;
    const caches: Entry[] = [];
    const memos: Entry[] = [];
    for (const entry of entries) {
      if (entry.mtimeMs < now - STALE_MS) remove(entry.path);
      else if (entry.cache) caches.push(entry);
      else if (entry.memo) memos.push(entry);
    }
    // the cache just written is one of the MAX_CACHES, and the newest
    removeOldest(caches, MAX_CACHES - 1);
    removeOldest(memos, MAX_MEMOS);
  } catch {
    // the folder cannot be listed: its files stay, and the start goes on
  }
}

/** Removes all but the `keep` newest of `entries`. */
function removeOldest(entries: Entry[], keep: number): void {
  if (entries.length <= keep) return;
  entries.sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (let i = keep; i < entries.length; i++) remove(entries[i]!.path);
}

function remove(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // gone already, or held open (Windows): it stays until a later prune
  }
}
