import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The lockfiles a trace header can name, in the order the hook looks for them. */
const LOCKFILES = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock'];

export interface Project {
  /** the nearest directory holding a package.json, from the cwd up; the cwd when there is none */
  readonly root: string;
  /** the root's lockfile and its digest, which tells two traces' dependency trees apart */
  readonly lockfile: { readonly file: string; readonly sha256: string } | null;
}

export function findProject(cwd: string): Project {
  const root = findRoot(cwd);
  return { root, lockfile: digestLockfile(root) };
}

/** The nearest directory holding a package.json, from `cwd` up; `cwd` when there is none. */
export function findRoot(cwd: string): string {
  for (let dir = cwd; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) return cwd;
  }
}

function digestLockfile(root: string): Project['lockfile'] {
  for (const file of LOCKFILES) {
    const path = join(root, file);
    if (existsSync(path)) return { file, sha256: createHash('sha256').update(readFileSync(path)).digest('hex') };
  }
  return null;
}

/** DETDRIFT_LOCKFILE's `file:sha256` form, which the hook parses at its last colon. */
export function lockfileVariable(lockfile: Project['lockfile']): string | undefined {
  return lockfile ? `${lockfile.file}:${lockfile.sha256}` : undefined;
}
