import { basename, relative } from 'node:path';
import { LOCKFILE_NAMES } from '../../tracer/settings.js';
import { git } from './worktree.js';

/** What a dependency bump is expected to change: lockfiles and manifests. */
const DEPENDENCY_FILES: ReadonlySet<string> = new Set([...LOCKFILE_NAMES, 'package.json', '.yarnrc.yml', '.npmrc']);

const MAX_FILES = 20;

/**
 * The project's own files that differ between `base` and head besides its lockfiles and manifests,
 * and how many of them are uncommitted (head is the working tree when `head` is null): a bump that
 * comes with other changes may not be what changed the run.
 */
export async function ownChanges(
  projectRoot: string,
  base: string,
  head: string | null,
): Promise<{ files: string[]; uncommitted: number } | null> {
  const top = await git(projectRoot, ['rev-parse', '--show-toplevel']);
  const scope = relative(top, projectRoot) || '.';
  const list = async (args: readonly string[]) =>
    (await git(projectRoot, [...args, '--', scope]).catch(() => ''))
      .split('\n')
      .filter((file) => file !== '' && !DEPENDENCY_FILES.has(basename(file)));
  const committed = await list(['diff', '--name-only', base, ...(head === null ? ['HEAD'] : [head])]);
  const uncommitted =
    head === null
      ? [
          ...(await list(['diff', '--name-only', 'HEAD'])),
          ...(await list(['ls-files', '--others', '--exclude-standard', '--full-name'])),
        ]
      : [];
  const files = [...new Set([...committed, ...uncommitted])].sort();
  if (files.length === 0) return null;
  return { files: files.slice(0, MAX_FILES), uncommitted: new Set(uncommitted).size };
}
