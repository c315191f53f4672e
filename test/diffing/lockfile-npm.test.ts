/**
 * package-lock.json: by hand with what real ones hold (workspaces, aliases, peers, platform
 * packages), and as npm itself writes it, offline: the dependencies are local (`file:`
 * directories, which npm links, and `file:` tarballs, which it installs), so no registry is asked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffLockfiles, parseLockfile, readLockfile, type LockfileChange } from '../../diffing/lockfile/index.js';
import { project, tempDir } from '../helpers.js';
import { SHA, summary } from '../lockfile-fixtures.js';

const NPM = {
  name: 'fixture-app',
  version: '1.0.0',
  lockfileVersion: 3,
  requires: true,
  packages: {
    '': {
      name: 'fixture-app',
      version: '1.0.0',
      workspaces: ['packages/*'],
      dependencies: { 'react-dom': '^18.2.0', 'string-width-cjs': 'npm:string-width@^4.2.0' },
      optionalDependencies: { fsevents: '^2.3.3' },
    },
    'node_modules/devtool': {
      version: '1.0.0',
      resolved: 'https://registry.npmjs.org/devtool/-/devtool-1.0.0.tgz',
      integrity: SHA,
      dev: true,
    },
    'node_modules/fsevents': {
      version: '2.3.3',
      resolved: 'https://registry.npmjs.org/fsevents/-/fsevents-2.3.3.tgz',
      integrity: SHA,
      hasInstallScript: true,
      optional: true,
      os: ['darwin'],
      engines: { node: '^8.16.0 || ^10.6.0 || >=11.0.0' },
    },
    'node_modules/js-tokens': {
      version: '4.0.0',
      resolved: 'https://registry.npmjs.org/js-tokens/-/js-tokens-4.0.0.tgz',
      integrity: SHA,
    },
    'node_modules/leaf': {
      version: '1.0.0',
      resolved: 'https://registry.npmjs.org/leaf/-/leaf-1.0.0.tgz',
      integrity: SHA,
    },
    'node_modules/loose-envify': {
      version: '1.4.0',
      resolved: 'https://registry.npmjs.org/loose-envify/-/loose-envify-1.4.0.tgz',
      integrity: SHA,
      dependencies: { 'js-tokens': '^3.0.0 || ^4.0.0' },
      bin: { 'loose-envify': 'cli.js' },
    },
    'node_modules/react': {
      version: '18.2.0',
      resolved: 'https://registry.npmjs.org/react/-/react-18.2.0.tgz',
      integrity: SHA,
      peer: true,
      dependencies: { 'loose-envify': '^1.1.0' },
      engines: { node: '>=0.10.0' },
    },
    'node_modules/react-dom': {
      version: '18.2.0',
      resolved: 'https://registry.npmjs.org/react-dom/-/react-dom-18.2.0.tgz',
      integrity: SHA,
      dependencies: { 'loose-envify': '^1.1.0', scheduler: '^0.23.0' },
      peerDependencies: { react: '^18.2.0' },
    },
    'node_modules/scheduler': {
      version: '0.23.0',
      resolved: 'https://registry.npmjs.org/scheduler/-/scheduler-0.23.0.tgz',
      integrity: SHA,
      dependencies: { 'loose-envify': '^1.1.0' },
    },
    'node_modules/string-width-cjs': {
      name: 'string-width',
      version: '4.2.3',
      resolved: 'https://registry.npmjs.org/string-width/-/string-width-4.2.3.tgz',
      integrity: SHA,
    },
    'node_modules/tool': { resolved: 'packages/tool', link: true },
    'packages/tool': { version: '0.1.0', dependencies: { leaf: '^1.0.0' }, devDependencies: { devtool: '^1.0.0' } },
    'packages/tool/node_modules/leaf': {
      version: '2.0.0',
      resolved: 'https://registry.npmjs.org/leaf/-/leaf-2.0.0.tgz',
      integrity: SHA,
    },
  },
};

test('npm: a workspace link, an alias, a peer, an optional platform package, a nested install', () => {
  const lock = parseLockfile(JSON.stringify(NPM, null, 2), 'package-lock.json');
  assert.deepEqual(summary(lock), {
    packages: {
      'devtool@1.0.0': [true, true, false, 'devtool'],
      'fsevents@2.3.3': [true, false, true, 'fsevents'],
      'js-tokens@4.0.0': [false, false, false, 'react-dom > loose-envify > js-tokens'],
      // Only the workspace used leaf, and it has its own copy: the hoisted one is unreached.
      'leaf@1.0.0': [false, false, false, 'leaf'],
      'leaf@2.0.0': [true, false, false, 'leaf'],
      'loose-envify@1.4.0': [false, false, false, 'react-dom > loose-envify'],
      'react-dom@18.2.0': [true, false, false, 'react-dom'],
      'react@18.2.0': [false, false, false, 'react-dom > react'],
      'scheduler@0.23.0': [false, false, false, 'react-dom > scheduler'],
      'string-width@4.2.3': [true, false, false, 'string-width'],
    },
    importers: { '': ['fsevents', 'react-dom', 'string-width-cjs'], 'packages/tool': ['devtool', 'leaf'] },
  });
  assert.equal(lock.packages.get('packages/tool/node_modules/leaf')!.version, '2.0.0');
});

const cache = tempDir('detdrift-npm-cache-');

/** Runs npm in `cwd` with nothing that could reach a network; null when npm is not installed. */
function npm(cwd: string, args: readonly string[]): string | null {
  const result = spawnSync('npm', args, {
    cwd,
    encoding: 'utf8',
    timeout: 300_000,
    env: {
      ...process.env,
      NODE_OPTIONS: undefined,
      npm_config_cache: cache,
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_offline: 'true',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
    },
  });
  if (result.error && (result.error as NodeJS.ErrnoException).code === 'ENOENT') return null;
  assert.equal(result.status, 0, `npm ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

const INSTALL = ['install', '--package-lock-only', '--ignore-scripts'];
const hasNpm = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;

/** app-dep → mid → leaf as sibling `file:` directories: npm writes links and their targets. */
function linkedProject(leaf: string, lockfileVersion: number): string {
  const dir = project({
    'package.json': { name: 'fixture-app', version: '1.0.0', dependencies: { 'app-dep': 'file:deps/app-dep' } },
    'deps/app-dep/package.json': { name: 'app-dep', version: '1.0.0', dependencies: { mid: 'file:../mid' } },
    'deps/mid/package.json': { name: 'mid', version: '1.0.0', dependencies: { leaf: 'file:../leaf' } },
    'deps/leaf/package.json': { name: 'leaf', version: leaf },
  });
  npm(dir, [...INSTALL, `--lockfile-version=${lockfileVersion}`]);
  return join(dir, 'package-lock.json');
}

const keyless = (changes: readonly LockfileChange[]) => changes.map(({ key: _key, ...change }) => change);

test('npm-written lockfiles (v2 and v3, linked file: dependencies): a transitive bump two levels down', {
  skip: !hasNpm && 'npm is not installed',
}, () => {
  for (const version of [2, 3]) {
    const base = readLockfile(linkedProject('1.0.0', version));
    const head = readLockfile(linkedProject('1.1.0', version));
    assert.equal(base.version, String(version));
    assert.deepEqual(
      [...base.packages.values()].map((pkg) => [pkg.key, pkg.name, pkg.version, pkg.direct, pkg.path.join(' > ')]),
      [
        ['deps/app-dep', 'app-dep', '1.0.0', true, 'app-dep'],
        ['deps/leaf', 'leaf', '1.0.0', false, 'app-dep > mid > leaf'],
        ['deps/mid', 'mid', '1.0.0', false, 'app-dep > mid'],
      ],
      `lockfileVersion ${version}`,
    );
    const changes = diffLockfiles(base, head);
    assert.deepEqual(keyless(changes), [
      {
        name: 'leaf',
        from: '1.0.0',
        to: '1.1.0',
        kind: 'minor',
        breaking: false,
        direct: false,
        dev: false,
        optional: false,
        path: ['app-dep', 'mid', 'leaf'],
      },
    ]);
    assert.equal(changes[0]!.key, 'deps/leaf');
  }
});

test('npm-written lockfile with installed file: tarballs: install paths under node_modules', {
  skip: !hasNpm && 'npm is not installed',
}, () => {
  const packed = tempDir('detdrift-npm-packs-');
  const pack = (name: string, version: string, dependencies: Record<string, string> = {}) => {
    const dir = project({ 'package.json': { name, version, dependencies } });
    npm(dir, ['pack', '--pack-destination', packed]);
    return `file:${join(packed, `${name}-${version}.tgz`)}`;
  };
  const app = pack('app-dep', '1.0.0', { mid: '^1.0.0' });
  const mid = pack('mid', '1.0.0', { leaf: '^1.0.0' });
  const lockOf = (leaf: string) => {
    const dir = project({
      'package.json': { name: 'fixture-app', version: '1.0.0', dependencies: { 'app-dep': app, mid, leaf } },
    });
    npm(dir, INSTALL);
    return readLockfile(join(dir, 'package-lock.json'));
  };
  const base = lockOf(pack('leaf', '1.0.0'));
  const head = lockOf(pack('leaf', '1.0.1'));
  assert.deepEqual([...head.packages.keys()], ['node_modules/app-dep', 'node_modules/leaf', 'node_modules/mid']);
  assert.deepEqual(diffLockfiles(base, head), [
    {
      name: 'leaf',
      from: '1.0.0',
      to: '1.0.1',
      kind: 'patch',
      breaking: false,
      direct: true,
      dev: false,
      optional: false,
      path: ['leaf'],
      key: 'node_modules/leaf',
    },
  ]);
});
