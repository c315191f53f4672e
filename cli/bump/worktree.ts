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

/**
 * The commit `ref` names, fetched first where the checkout lacks it: CI checks out one commit
 * (actions/checkout's depth 1), so `origin/main` or `HEAD~1` is not there yet. A remote branch is
 * fetched at depth 1, an ancestor by deepening the history, a bare branch name from the default
 * remote. Refuses, naming the option (`--base`, `--head`) that gave it, a ref no fetch brings.
 */
export async function verifyRef(projectRoot: string, ref: string, option: string): Promise<string> {
  const top = await git(projectRoot, ['rev-parse', '--show-toplevel']);
  if (await isCommit(projectRoot, ref)) return ref;
  const shallow = (await git(projectRoot, ['rev-parse', '--is-shallow-repository'])) === 'true';
  const fetched = await fetchRef(projectRoot, ref, shallow);
  if (fetched !== null) return fetched;
  const hint = shallow
    ? ' This checkout is shallow (actions/checkout fetches one commit by default): add `fetch-depth: 0` to its `with:`, or fetch the base first (git fetch --depth=1 origin main).'
    : '';
  throw new CliError('ERR_GIT_REF', `${option} ${ref} is not a commit of the repository at ${top}.${hint}`);
}

async function isCommit(cwd: string, ref: string): Promise<boolean> {
  const result = await execa('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd, reject: false });
  return result.exitCode === 0;
}

/** Fetches what `ref` needs from its remote and gives the ref that now names it, or null. */
async function fetchRef(cwd: string, ref: string, shallow: boolean): Promise<string | null> {
  const remotes = (await git(cwd, ['remote'])).split('\n').filter(Boolean);
  if (remotes.length === 0 || ref.startsWith('-')) return null;
  const depth = shallow ? ['--depth=1'] : [];
  const fetch = async (args: readonly string[]) =>
    (await execa('git', ['fetch', '--quiet', '--no-tags', ...args], { cwd, reject: false })).exitCode === 0;
  // HEAD~1, main^^: deepen the history by as many parents as the ref climbs.
  const ancestry = /^(.*?)((?:~\d*|\^\d*)+)$/.exec(ref);
  if (ancestry && shallow) {
    const steps = [...ancestry[2]!.matchAll(/([~^])(\d*)/g)].reduce(
      (sum, [, kind, count]) => sum + (kind === '~' ? Number(count || 1) : 1),
      0,
    );
    await fetch([`--deepen=${steps}`, remotes.includes('origin') ? 'origin' : remotes[0]!]);
    return (await isCommit(cwd, ref)) ? ref : null;
  }
  const slash = ref.indexOf('/');
  const remote = slash > 0 && remotes.includes(ref.slice(0, slash)) ? ref.slice(0, slash) : null;
  const origin = remote ?? (remotes.includes('origin') ? 'origin' : remotes[0]!);
  const branch = remote ? ref.slice(slash + 1) : ref;
  const tracking = `refs/remotes/${origin}/${branch}`;
  if (await fetch([...depth, origin, `+refs/heads/${branch}:${tracking}`])) return tracking;
  // A commit id the remote serves directly.
  if (/^[0-9a-f]{7,40}$/i.test(ref) && (await fetch([...depth, origin, ref])))
    return (await isCommit(cwd, ref)) ? ref : null;
  return null;
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
