import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { type detdrift, reportOf } from './cli-fixtures.js';
import { CLI, project, runPlain, tempDir } from './helpers.js';
import { FILE_NAMES, lockfileText, manifest, nm, type FixtureFormat, type Tree } from './lockfile-fixtures.js';

/**
 * `detdrift bump` on real git repositories: a base and a head commit whose lockfiles (one story
 * per lockfile format) and installed packages differ. Packages live in vendor/NAME-VERSION; the
 * committed tree.json says what goes where in node_modules, and materialize.cjs installs it: the
 * `--install` command of the worktree, and the head checkout's install. The layout is npm's, or
 * pnpm's: each package in `node_modules/.pnpm/NAME@VERSION/node_modules/NAME`, its dependencies
 * symlinked beside it, the direct ones symlinked from `node_modules/NAME`.
 */

export interface Side {
  readonly tree: Tree;
  /** `name@version` → index.js source, or the package's files by path */
  readonly packages: Readonly<Record<string, string | Readonly<Record<string, string>>>>;
}

const MATERIALIZE = `'use strict';
const fs = require('fs');
const path = require('path');
// Both sides' trees are committed, each named by its lockfile's digest: a bump's head commit changes
// the manifest and the lockfile only, as a Renovate or Dependabot pull request does.
const lockfile = ['package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock'].find((name) => fs.existsSync(name));
const digest = require('crypto').createHash('sha1').update(fs.readFileSync(lockfile)).digest('hex');
const { installs, layout } = JSON.parse(fs.readFileSync(path.join('trees', digest + '.json'), 'utf8'));
fs.rmSync('node_modules', { recursive: true, force: true });
const store = (pkg) => path.join('node_modules', '.pnpm', pkg.name.replace('/', '+') + '@' + pkg.version, 'node_modules', pkg.name);
const link = (from, to) => {
  fs.mkdirSync(path.dirname(from), { recursive: true });
  fs.symlinkSync(path.relative(path.dirname(from), to), from);
};
const byName = new Map(Object.values(installs).map((pkg) => [pkg.name, pkg]));
for (const [where, pkg] of Object.entries(installs)) {
  fs.cpSync(path.join('vendor', pkg.name + '-' + pkg.version), layout === 'pnpm' ? store(pkg) : where, { recursive: true });
  if (layout !== 'pnpm') continue;
  for (const dep of Object.keys(pkg.dependencies || {})) link(path.join(path.dirname(store(pkg)), dep), store(byName.get(dep)));
}
if (layout === 'pnpm') {
  for (const name of Object.keys(JSON.parse(fs.readFileSync('package.json', 'utf8')).dependencies)) link(path.join('node_modules', name), store(byName.get(name)));
}
`;

function sideFiles(side: Side, format: FixtureFormat, layout: Layout): Record<string, string | object> {
  const lockfile = lockfileText(side.tree, format);
  const files: Record<string, string | object> = {
    'package.json': manifest(side.tree),
    [FILE_NAMES[format]]: lockfile,
    [`trees/${createHash('sha1').update(lockfile).digest('hex')}.json`]: {
      layout,
      installs: Object.fromEntries(
        Object.entries(side.tree.installs).map(([where, install]) => [
          where,
          { name: where.split('node_modules/').pop(), version: install.version, dependencies: install.dependencies },
        ]),
      ),
    },
  };
  for (const [id, source] of Object.entries(side.packages)) {
    const at = id.lastIndexOf('@');
    const [name, version] = [id.slice(0, at), id.slice(at + 1)];
    const install = Object.values(side.tree.installs).find((candidate) => candidate.version === version);
    files[`vendor/${name}-${version}/package.json`] = {
      name,
      version,
      main: 'index.js',
      dependencies: install?.dependencies,
    };
    const own = typeof source === 'string' ? { 'index.js': source } : source;
    for (const [path, text] of Object.entries(own)) files[`vendor/${name}-${version}/${path}`] = text;
  }
  return files;
}

/** How materialize.cjs lays node_modules out: as npm does, or as pnpm does. */
export type Layout = 'npm' | 'pnpm';

/**
 * A repository whose HEAD~1 is `base` and HEAD is `head`, the head checkout installed; `files` are
 * the project's own, the same in both.
 */
export function repository(
  format: FixtureFormat,
  app: string,
  base: Side,
  head: Side,
  layout: Layout = 'npm',
  files: Readonly<Record<string, string>> = {},
): string {
  // The base commit holds both sides' packages and trees; head's changes the manifest and the lockfile.
  const headFiles = sideFiles(head, format, layout);
  const shared = Object.fromEntries(
    Object.entries(headFiles).filter(([path]) => path.startsWith('vendor/') || path.startsWith('trees/')),
  );
  const dir = project({
    'app.js': app,
    'materialize.cjs': MATERIALIZE,
    '.gitignore': 'node_modules\n',
    ...files,
    ...shared,
    ...sideFiles(base, format, layout),
  });
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'root');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'base');
  const headDir = project(headFiles);
  execFileSync('cp', ['-R', `${headDir}/.`, dir]);
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '--allow-empty', '-m', 'head');
  execFileSync(process.execPath, ['materialize.cjs'], { cwd: dir });
  return dir;
}

/** A repository whose one direct dependency `name` moves between two versions, each an index.js. */
export function upgrade(
  format: FixtureFormat,
  app: string,
  name: string,
  [from, fromSource]: readonly [string, string],
  [to, toSource]: readonly [string, string],
): string {
  const side = (version: string, source: string): Side => ({
    tree: direct(name, version),
    packages: { [`${name}@${version}`]: source },
  });
  return repository(format, app, side(from, fromSource), side(to, toSource));
}

export function bump(dir: string, ...extra: string[]) {
  return bumpOf(dir, [process.execPath, 'app.js'], 'materialize.cjs', extra);
}

/** `bump`'s report as a person reads it: the text, not the JSON. */
export function bumpText(dir: string, ...extra: string[]) {
  const options = ['--base', 'HEAD~1', '--seed', '7', '--install', `${process.execPath} materialize.cjs`, ...extra];
  return runPlain([CLI, 'bump', ...options, '--', process.execPath, 'app.js'], { cwd: dir });
}

/** `bump --base HEAD~1 --seed 7 --json -- ...command` in `dir`, each tree installed by `node install`. */
export function bumpOf(
  dir: string,
  command: readonly string[],
  install: string,
  extra: readonly string[] = [],
  env: Readonly<Record<string, string | undefined>> = {},
) {
  const installs = `${process.execPath} ${install}`;
  const options = ['--base', 'HEAD~1', '--seed', '7', '--install', installs, '--json', ...extra];
  return runPlain([CLI, 'bump', ...options, '--', ...command], { cwd: dir, env });
}

/** The report as plain JSON: these tests read it field by field, as a CI script would. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const json = (run: ReturnType<typeof detdrift>, status: number): any => reportOf(run, status);

export const direct = (name: string, version: string): Tree => ({
  dependencies: { [name]: `^${version}` },
  installs: { [nm(name)]: { version } },
});

/** The bump repository as a remote: `main` at the base, `bump` at head; a clone of `bump` one commit deep, installed. */
export function shallowClone(): string {
  const origin = upgrade(
    'npm-v3',
    "console.log('rolled', require('dice').roll());\n",
    'dice',
    ['1.0.0', 'exports.roll = () => 4;\n'],
    ['1.0.1', 'exports.roll = () => 4 + Math.random();\n'],
  );
  execFileSync('git', ['checkout', '-q', '--detach'], { cwd: origin });
  execFileSync('git', ['branch', '-f', 'main', 'HEAD~1'], { cwd: origin });
  execFileSync('git', ['branch', '-f', 'bump', 'HEAD'], { cwd: origin });
  const clone = join(tempDir(), 'clone');
  execFileSync('git', ['clone', '-q', '--depth', '1', '--branch', 'bump', `file://${origin}`, clone]);
  execFileSync(process.execPath, ['materialize.cjs'], { cwd: clone });
  return clone;
}
