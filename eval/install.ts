/**
 * Installs one upgrade's two trees from the registry into the cache: `base/` (the harness with the
 * dependency at base) and `head/`, a git repository whose last two commits are base's and head's
 * package.json and lockfile, installed at head, which is what `detdrift bump --base HEAD~1` reads.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness, Upgrade } from './harnesses.js';

export interface Trees {
  readonly base: string;
  readonly head: string;
}

function manifest(harness: Harness, upgrade: Upgrade, version: string): object {
  const dependencies: Record<string, string> = { [harness.package]: upgrade.harnessVersion, ...upgrade.testDeps };
  if (upgrade.via === 'direct') dependencies[upgrade.dependency] = version;
  return {
    name: `eval-${harness.name}-${upgrade.id}`.replace(/[^a-z0-9.-]/gi, '-').toLowerCase(),
    version: '1.0.0',
    private: true,
    dependencies,
    ...(upgrade.via === 'override' ? { overrides: { [upgrade.dependency]: version } } : {}),
  };
}

function sh(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed in ${cwd} (exit ${result.status}):\n${result.stderr.slice(-2000)}`,
    );
  }
}

/** `npm install` of the manifest in dir, skipped when the same manifest is installed there already. */
function installTree(dir: string, json: string): void {
  const stamp = join(dir, 'node_modules', '.eval-manifest.json');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === json) return;
  mkdirSync(dir, { recursive: true });
  rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
  rmSync(join(dir, 'package-lock.json'), { force: true });
  writeFileSync(join(dir, 'package.json'), json);
  sh('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  writeFileSync(stamp, json);
}

/** The version of `name` the harness resolves: its own nested copy first, else the top-level one. */
export function installedVersion(root: string, harness: Harness, name: string): string | null {
  for (const dir of [
    join(root, 'node_modules', harness.package, 'node_modules', name),
    join(root, 'node_modules', name),
  ]) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
  }
  return null;
}

const GIT = ['-c', 'user.name=detdrift-eval', '-c', 'user.email=eval@detdrift.invalid', '-c', 'commit.gpgsign=false'];

/** Both trees of an upgrade, installed; throws when the registry gave another version than asked. */
export function installUpgrade(cache: string, harness: Harness, upgrade: Upgrade): Trees {
  const root = join(cache, harness.name, upgrade.id);
  const trees = { base: join(root, 'base'), head: join(root, 'head') };
  const baseJson = `${JSON.stringify(manifest(harness, upgrade, upgrade.base), null, 2)}\n`;
  const headJson = `${JSON.stringify(manifest(harness, upgrade, upgrade.head), null, 2)}\n`;
  installTree(trees.base, baseJson);
  const fresh = !existsSync(join(trees.head, 'node_modules', '.eval-manifest.json'));
  installTree(trees.head, headJson);
  if (fresh || !existsSync(join(trees.head, '.git'))) {
    rmSync(join(trees.head, '.git'), { recursive: true, force: true });
    const headLock = readFileSync(join(trees.head, 'package-lock.json'));
    sh('git', ['init', '-q'], trees.head);
    writeFileSync(join(trees.head, '.gitignore'), 'node_modules\n');
    writeFileSync(join(trees.head, 'package.json'), baseJson);
    copyFileSync(join(trees.base, 'package-lock.json'), join(trees.head, 'package-lock.json'));
    sh('git', [...GIT, 'add', '.gitignore', 'package.json', 'package-lock.json'], trees.head);
    sh('git', [...GIT, 'commit', '-q', '-m', `base: ${upgrade.dependency}@${upgrade.base}`], trees.head);
    writeFileSync(join(trees.head, 'package.json'), headJson);
    writeFileSync(join(trees.head, 'package-lock.json'), headLock);
    sh('git', [...GIT, 'commit', '-q', '-am', `head: ${upgrade.dependency}@${upgrade.head}`], trees.head);
  }
  for (const [side, dir] of Object.entries(trees)) {
    const want = side === 'base' ? upgrade.base : upgrade.head;
    const got = installedVersion(dir, harness, upgrade.dependency);
    if (got !== want)
      throw new Error(`${harness.name} ${upgrade.id}: ${side} has ${upgrade.dependency}@${got}, not ${want}`);
  }
  return trees;
}
