import { existsSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { execa } from 'execa';
import { CliError } from '../shared/errors.js';
import { makeWorkDir } from '../shared/workdir.js';
import { interruption, throwIfInterrupted } from '../shared/interrupt.js';

/** A checkout of another ref of the project's repository, with its own clean install. */
export interface Worktree {
  /** the project root inside the worktree (the same subdirectory as in the main checkout) */
  readonly root: string;
  remove(): Promise<void>;
}

/**
 * `git worktree add --detach` of `ref` in a temporary directory, then `install` run in the
 * project's directory there, so the base's dependency tree is exactly what its lockfile says.
 * `ref` is one verifyRef accepted.
 */
export async function checkoutWorktree(
  projectRoot: string,
  ref: string,
  install: readonly string[],
): Promise<Worktree> {
  const top = await git(projectRoot, ['rev-parse', '--show-toplevel']);
  const dir = makeWorkDir('base');
  rmSync(dir, { recursive: true });
  await git(projectRoot, ['worktree', 'add', '--detach', dir, ref]);
  const root = join(dir, relative(top, projectRoot));
  const remove = async () => {
    await git(projectRoot, ['worktree', 'remove', '--force', dir]).catch(() =>
      rmSync(dir, { recursive: true, force: true }),
    );
  };
  try {
    if (!existsSync(join(root, 'package.json')))
      throw new CliError('ERR_GIT_REF', `${ref} has no package.json at ${relative(top, projectRoot) || '.'}`);
    const [file, ...args] = install as [string, ...string[]];
    const result = await execa(file, args, { cwd: root, reject: false, all: true, cancelSignal: interruption });
    throwIfInterrupted();
    if (result.exitCode !== 0) {
      throw new CliError(
        'ERR_INSTALL',
        `installing ${ref}'s dependencies failed (${install.join(' ')}, exit ${result.exitCode}):\n${String(result.all ?? '').slice(-2000)}`,
      );
    }
    return { root, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Refuses a ref that is not a commit of the repository, naming the option (`--base`, `--head`) that gave it. */
export async function verifyRef(projectRoot: string, ref: string, option: string): Promise<void> {
  const top = await git(projectRoot, ['rev-parse', '--show-toplevel']);
  await git(projectRoot, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch((error: unknown) => {
    throw new CliError('ERR_GIT_REF', `${option} ${ref} is not a commit of the repository at ${top}`, { cause: error });
  });
}

export async function git(cwd: string, args: readonly string[]): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false });
  if (result.exitCode !== 0) {
    throw new CliError(
      'ERR_GIT',
      `git ${args.join(' ')} failed in ${cwd}: ${String(result.stderr).trim() || `exit ${result.exitCode}`}`,
    );
  }
  return String(result.stdout).trim();
}

/** The install command for the lockfile a project has. */
export function installCommand(lockfile: string | null): string[] {
  switch (lockfile) {
    case 'pnpm-lock.yaml':
      return ['pnpm', 'install', '--frozen-lockfile'];
    case 'yarn.lock':
      return ['yarn', 'install', '--frozen-lockfile'];
    default:
      // --install-links: a `file:` dependency is installed as a copy, so its frames are name@version.
      return ['npm', 'ci', '--install-links', '--no-audit', '--no-fund'];
  }
}
