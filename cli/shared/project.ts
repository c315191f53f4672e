import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TraceHeader } from '../../tracer/format.js';
import { lockfileMemo } from '../../instrument/lockfile-memo.js';
import { digestLockfile } from '../../tracer/settings.js';

export interface Project {
  /** the nearest directory holding a package.json, from the cwd up; the cwd when there is none */
  readonly root: string;
  /** the root's lockfile and its digest, which tells two traces' dependency trees apart */
  readonly lockfile: TraceHeader['lockfile'];
}

/**
 * The project `cwd` is in. The lockfile's digest is the one the hook remembers for it
 * (instrument/lockfile-memo.ts) while the file is unchanged: digesting it loads node:crypto and
 * hashes a file of hundreds of kilobytes, 2-4 ms of each run before the command could start.
 */
export function findProject(cwd: string): Project {
  const root = findRoot(cwd);
  return { root, lockfile: digestLockfile(root, lockfileMemo()) };
}

/** The nearest directory holding a package.json, from `cwd` up; `cwd` when there is none. */
export function findRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}
