import { join, relative } from 'node:path';
import { execa } from 'execa';
import { parseLockfile, readLockfile, type Lockfile } from '../../diffing/lockfile/index.js';
import { CliError } from '../shared/errors.js';
import { git, verifyRef } from './worktree.js';

/**
 * A bump's two lockfiles, read from git before anything is installed or run, so a ref without a
 * lockfile, or a lockfile detdrift cannot read, fails in a second and not after the installs and
 * recordings. Head is the working tree's lockfile when no --head is given. The refs come back as
 * verifyRef resolved them (fetched, in a shallow checkout).
 */
export async function bumpLockfiles(
  projectRoot: string,
  lockfile: string,
  base: string,
  head: string | null,
): Promise<{ base: Lockfile; head: Lockfile; refs: { base: string; head: string | null } }> {
  const top = await git(projectRoot, ['rev-parse', '--show-toplevel']);
  const baseRef = await verifyRef(projectRoot, base, '--base');
  const headRef = head === null ? null : await verifyRef(projectRoot, head, '--head');
  const at = (ref: string) => lockfileAt(projectRoot, top, lockfile, ref);
  return {
    base: await at(baseRef),
    head: headRef === null ? readLockfile(join(projectRoot, lockfile)) : await at(headRef),
    refs: { base: baseRef, head: headRef },
  };
}

async function lockfileAt(projectRoot: string, top: string, lockfile: string, ref: string): Promise<Lockfile> {
  const show = async (file: string) => {
    const path = relative(top, join(projectRoot, file)).split('\\').join('/');
    const shown = await execa('git', ['show', `${ref}:${path}`], {
      cwd: projectRoot,
      reject: false,
      stripFinalNewline: false,
    });
    return { path, text: shown.exitCode === 0 ? String(shown.stdout) : null, error: String(shown.stderr).trim() };
  };
  const lock = await show(lockfile);
  if (lock.text === null) throw new CliError('ERR_LOCKFILE_MISSING', `${ref} has no ${lock.path}: ${lock.error}`);
  // yarn lockfiles take the direct dependencies' kinds from the package.json beside them.
  const manifest = lockfile === 'yarn.lock' ? (await show('package.json')).text : null;
  return parseLockfile(lock.text, `${ref}:${lock.path}`, {
    manifest: manifest === null ? undefined : parseManifest(manifest),
  });
}

function parseManifest(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // the lockfile, not the manifest, is what is read here: without it, yarn guesses the direct ones
  }
}
