/**
 * The lockfile digests a hook started without the CLI remembers between runs (the CLI digests the
 * lockfile once per run and hands the digest down). Without them each start loads node:crypto and
 * hashes the lockfile: 5-6 ms of a 20 ms start on Node 22 and 24. One small file per lockfile path
 * in the code-cache folder (this user's own, code-cache-dir.cts): the identity it was digested at,
 * then the digest. Written at start, before the program runs: nothing here is recorded.
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { digestHex, digestString } from '../tracer/digest.js';
import { isLowerHex } from '../tracer/primordials.js';
import type { DigestMemo } from '../tracer/settings.js';
import { codeCacheDir } from './code-cache-dir.cjs';

/**
 * The memo. Its folder is looked for when a lockfile is found, not before: a project without one
 * costs nothing. Without a folder safe to use, nothing is remembered and each start digests.
 */
export function lockfileMemo(): DigestMemo {
  let dir: string | null | undefined;
  const fileOf = (path: string): string | null => {
    if (dir === undefined) dir = codeCacheDir();
    if (dir === null) return null;
    const { high, low } = digestString(path);
    return join(dir, `lockfile-${digestHex(high, low)}`); // code-cache-prune.cts knows this name
  };
  return {
    get(path, identity) {
      const file = fileOf(path);
      if (file === null) return null;
      try {
        const [kept, sha256] = readFileSync(file, 'utf8').split('\n');
        return kept === identity && sha256 !== undefined && isLowerHex(sha256, 64) ? sha256 : null;
      } catch {
        return null; // none yet, or unreadable: digested again
      }
    },
    set(path, identity, sha256) {
      // under a name of this process's, then renamed: a reader never sees half of one
      const file = fileOf(path);
      if (file === null) return;
      const partial = `${file}.${process.pid}`;
      try {
        writeFileSync(partial, `${identity}\n${sha256}\n`, { mode: 0o600 });
        renameSync(partial, file);
      } catch {
        try {
          unlinkSync(partial);
        } catch {
          // never written
        }
      }
    },
  };
}
