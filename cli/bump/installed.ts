import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { inside, installsOf, versionIn } from '../../diffing/locate.js';
import type { Lockfile } from '../../diffing/lockfile/index.js';
import { visible } from '../../report/untrusted.js';
import { CliError } from '../shared/errors.js';

/** A package the lockfile names that the tree on disk has at another version, or not at all. */
export interface Stale {
  readonly name: string;
  readonly locked: string;
  /** the version on disk; null when the package is not installed */
  readonly installed: string | null;
}

/** How many mismatches a message lists before "and N more". */
const SHOWN = 5;

/**
 * Refuses a dependency tree that is not the one its lockfile names (a lockfile bumped, the
 * install not run again): the runs would test the old versions and agree, and the bump would
 * pass unseen. `where` names the tree in the message, `remedy` says what mends it.
 */
export function checkInstalled(
  root: string,
  lock: Lockfile,
  wanted: ReadonlySet<string>,
  where: string,
  remedy: string,
): void {
  const stale = staleInstalls(root, lock, wanted);
  if (stale.length === 0) return;
  const shown = stale.slice(0, SHOWN).map(
    (one) =>
      // A lockfile's names and versions are a dependency's text: one line, whatever they hold.
      `${visible(one.name)} is locked at ${visible(one.locked)}, ${one.installed === null ? 'not installed' : `installed at ${visible(one.installed)}`}`,
  );
  const more = stale.length > SHOWN ? ` (and ${stale.length - SHOWN} more)` : '';
  throw new CliError(
    'ERR_INSTALL_STALE',
    `${where}: node_modules in ${root} does not match ${lock.file}: ${shown.join('; ')}${more}. ${remedy}`,
  );
}

/**
 * The packages of `lock` whose install under `root` disagrees with it: each direct dependency of
 * the root project, and each package whose `name@version` is in `wanted` (the versions a bump
 * moved). Where a package lives is known for npm (its install path) and for a direct dependency
 * (`node_modules/name`): another version there, or none, is a mismatch, except a missing optional
 * or dev-only package (another platform's binary, `--omit=dev`). Elsewhere (a transitive package
 * of yarn or pnpm), a package is stale when its version is installed nowhere that installsOf looks
 * and a version the lockfile does not list is. One package.json read per package checked; a Plug'n'Play
 * tree (yarn berry without node_modules) is not checked.
 */
function staleInstalls(root: string, lock: Lockfile, wanted: ReadonlySet<string>): Stale[] {
  if (!existsSync(join(root, 'node_modules')) && existsSync(join(root, '.pnp.cjs'))) return [];
  const direct = new Map(
    lock.importers.find((importer) => importer.id === '')?.edges.map((edge) => [edge.target, edge.name]),
  );
  const listed = new Set([...lock.packages.values()].map((pkg) => `${pkg.name}@${pkg.version}`));
  const stale: Stale[] = [];
  for (const pkg of lock.packages.values()) {
    const alias = direct.get(pkg.key);
    if (alias === undefined && !wanted.has(`${pkg.name}@${pkg.version}`)) continue;
    const path =
      lock.format === 'npm' && pkg.key.startsWith('node_modules/')
        ? pkg.key
        : alias === undefined
          ? null
          : join('node_modules', alias);
    if (path !== null) {
      const dir = inside(root, path);
      const installed = dir === null ? null : versionIn(dir);
      if (installed !== pkg.version && (installed !== null || !(pkg.optional || pkg.dev)))
        stale.push({ name: pkg.name, locked: pkg.version, installed });
      continue;
    }
    const versions = [...installsOf(root, pkg.name).keys()];
    const unlisted = versions.find((version) => !listed.has(`${pkg.name}@${version}`));
    if (!versions.includes(pkg.version) && unlisted !== undefined)
      stale.push({ name: pkg.name, locked: pkg.version, installed: unlisted });
  }
  return stale;
}
