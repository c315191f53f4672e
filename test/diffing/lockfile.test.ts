import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { diffLockfiles, readLockfile, type LockfileChange } from '../../diffing/lockfile/index.js';
import { project } from '../helpers.js';
import {
  FILE_NAMES,
  FORMATS,
  lockfileText,
  manifest,
  nm,
  SAMPLE as BASE,
  type FixtureFormat,
  type Install,
  type Tree,
} from '../lockfile-fixtures.js';

/** A project directory with package.json and the tree's lockfile: returns the lockfile's path. */
function writeLockProject(tree: Tree, format: FixtureFormat): string {
  const dir = project({ 'package.json': manifest(tree), [FILE_NAMES[format]]: lockfileText(tree, format) });
  return join(dir, FILE_NAMES[format]);
}

/** BASE with some installs replaced (null removes one) and some root ranges changed. */
function head(installs: Record<string, Install | null>, dependencies: Record<string, string> = {}): Tree {
  const merged: Record<string, Install> = { ...BASE.installs };
  for (const [path, install] of Object.entries(installs)) {
    if (install) merged[path] = install;
    else delete merged[path];
  }
  return { ...BASE, dependencies: { ...BASE.dependencies, ...dependencies }, installs: merged };
}

type Change = Omit<LockfileChange, 'key'>;

/**
 * The diff in every format. They must agree on everything but the keys, which each format
 * spells its own way: returns the changes without keys, and the keys by format.
 */
function diffEverywhere(base: Tree, next: Tree): { changes: Change[]; keys: Record<FixtureFormat, string[]> } {
  const keys = {} as Record<FixtureFormat, string[]>;
  let agreed: Change[] | undefined;
  for (const format of FORMATS) {
    const changes = diffLockfiles(
      readLockfile(writeLockProject(base, format)),
      readLockfile(writeLockProject(next, format)),
    );
    keys[format] = changes.map((change) => change.key);
    const keyless = changes.map(({ key: _key, ...change }) => change);
    if (agreed === undefined) agreed = keyless;
    else assert.deepEqual(keyless, agreed, `${format} agrees with ${FORMATS[0]}`);
  }
  return { changes: agreed!, keys };
}

const change = (fields: Partial<Change> & Pick<Change, 'name' | 'from' | 'to' | 'kind' | 'path'>): Change => ({
  breaking: false,
  direct: false,
  dev: false,
  optional: false,
  ...fields,
});

test('every format reads the same tree into the same packages, paths and flags', () => {
  for (const format of FORMATS) {
    const lock = readLockfile(writeLockProject(BASE, format));
    const packages = [...lock.packages.values()]
      .map(({ name, version, direct, dev, optional, path }) => ({ name, version, direct, dev, optional, path }))
      .sort((a, b) => (`${a.name}@${a.version}` < `${b.name}@${b.version}` ? -1 : 1));
    assert.deepEqual(
      packages,
      [
        { name: 'app-dep', version: '1.0.0', direct: true, dev: false, optional: false, path: ['app-dep'] },
        { name: 'devtool', version: '1.0.0', direct: true, dev: true, optional: false, path: ['devtool'] },
        {
          name: 'leaf',
          version: '1.0.0',
          direct: false,
          dev: false,
          optional: false,
          path: ['app-dep', 'mid', 'leaf'],
        },
        { name: 'leaf', version: '2.0.0', direct: false, dev: false, optional: false, path: ['other', 'leaf'] },
        { name: 'mid', version: '1.0.0', direct: false, dev: false, optional: false, path: ['app-dep', 'mid'] },
        { name: 'other', version: '1.0.0', direct: true, dev: false, optional: false, path: ['other'] },
        { name: 'zero', version: '0.3.1', direct: true, dev: false, optional: false, path: ['zero'] },
      ],
      format,
    );
    assert.equal(lock.format, format.startsWith('npm') ? 'npm' : format);
  }
});

test('the same lockfile twice has no changes', () => {
  assert.deepEqual(diffEverywhere(BASE, BASE).changes, []);
});

test('a patch bump of a direct dependency', () => {
  const { changes, keys } = diffEverywhere(
    BASE,
    head({ [nm('app-dep')]: { version: '1.0.1', dependencies: { mid: '^1.0.0' } } }),
  );
  assert.deepEqual(changes, [
    change({ name: 'app-dep', from: '1.0.0', to: '1.0.1', kind: 'patch', direct: true, path: ['app-dep'] }),
  ]);
  assert.deepEqual(keys, {
    'npm-v2': ['node_modules/app-dep'],
    'npm-v3': ['node_modules/app-dep'],
    pnpm: ['app-dep@1.0.1'],
    'yarn-classic': ['app-dep@^1.0.0'],
    'yarn-berry': ['app-dep@npm:1.0.1'],
  });
});

test('a transitive bump two levels down names the path from the direct dependency', () => {
  const { changes } = diffEverywhere(BASE, head({ [nm('leaf')]: { version: '1.1.0' } }));
  assert.deepEqual(changes, [
    change({ name: 'leaf', from: '1.0.0', to: '1.1.0', kind: 'minor', path: ['app-dep', 'mid', 'leaf'] }),
  ]);
});

test('a package added and a package removed', () => {
  const next = head({
    [nm('mid')]: { version: '1.1.0', dependencies: { fresh: '^1.0.0' } },
    [nm('leaf')]: null,
    [nm('fresh')]: { version: '1.0.0' },
  });
  assert.deepEqual(diffEverywhere(BASE, next).changes, [
    change({ name: 'fresh', from: null, to: '1.0.0', kind: 'added', path: ['app-dep', 'mid', 'fresh'] }),
    change({ name: 'leaf', from: '1.0.0', to: null, kind: 'removed', path: ['app-dep', 'mid', 'leaf'] }),
    change({ name: 'mid', from: '1.0.0', to: '1.1.0', kind: 'minor', path: ['app-dep', 'mid'] }),
  ]);
});

test('a downgrade is a downgrade, not the major semver.diff would call it', () => {
  const next = head(
    { [nm('app-dep')]: { version: '0.9.0', dependencies: { mid: '^1.0.0' } } },
    { 'app-dep': '^0.9.0' },
  );
  assert.deepEqual(diffEverywhere(BASE, next).changes, [
    change({
      name: 'app-dep',
      from: '1.0.0',
      to: '0.9.0',
      kind: 'downgrade',
      breaking: true,
      direct: true,
      path: ['app-dep'],
    }),
  ]);
});

test('a prerelease of a later version is a breaking prerelease', () => {
  const { changes } = diffEverywhere(BASE, head({ [nm('leaf')]: { version: '1.1.0-beta.1' } }));
  assert.deepEqual(changes, [
    change({
      name: 'leaf',
      from: '1.0.0',
      to: '1.1.0-beta.1',
      kind: 'prerelease',
      breaking: true,
      path: ['app-dep', 'mid', 'leaf'],
    }),
  ]);
});

test('a 0.x minor bump is a minor that is breaking', () => {
  const { changes } = diffEverywhere(BASE, head({ [nm('zero')]: { version: '0.4.0' } }, { zero: '^0.4.0' }));
  assert.deepEqual(changes, [
    change({ name: 'zero', from: '0.3.1', to: '0.4.0', kind: 'minor', breaking: true, direct: true, path: ['zero'] }),
  ]);
});

test('two versions of one name at different paths are compared each with its own', () => {
  const { changes, keys } = diffEverywhere(
    BASE,
    head({ [nm('leaf')]: { version: '1.0.1' }, [nm('other', 'leaf')]: { version: '2.1.0' } }),
  );
  assert.deepEqual(changes, [
    change({ name: 'leaf', from: '1.0.0', to: '1.0.1', kind: 'patch', path: ['app-dep', 'mid', 'leaf'] }),
    change({ name: 'leaf', from: '2.0.0', to: '2.1.0', kind: 'minor', path: ['other', 'leaf'] }),
  ]);
  assert.deepEqual(keys['npm-v3'], ['node_modules/leaf', 'node_modules/other/node_modules/leaf']);
  assert.deepEqual(keys.pnpm, ['leaf@1.0.1', 'leaf@2.1.0']);
  assert.deepEqual(keys['yarn-berry'], ['leaf@npm:1.0.1', 'leaf@npm:2.1.0']);
});

test('only the nested copy bumped: the hoisted one is not reported', () => {
  const { changes } = diffEverywhere(BASE, head({ [nm('other', 'leaf')]: { version: '2.0.1' } }));
  assert.deepEqual(changes, [
    change({ name: 'leaf', from: '2.0.0', to: '2.0.1', kind: 'patch', path: ['other', 'leaf'] }),
  ]);
});

test('hoisting that moves installs without changing versions is no change', () => {
  const next = head({
    [nm('leaf')]: { version: '2.0.0' },
    [nm('mid', 'leaf')]: { version: '1.0.0' },
    [nm('other', 'leaf')]: null,
  });
  assert.deepEqual(diffEverywhere(BASE, next).changes, []);
});

test('a dependent moving to a version another one already had is a change for it', () => {
  // mid goes from leaf 1.0.0 to the 2.0.0 that other already used: no version is new.
  const next = head({
    [nm('mid')]: { version: '1.1.0', dependencies: { leaf: '^2.0.0' } },
    [nm('leaf')]: { version: '2.0.0' },
    [nm('other', 'leaf')]: null,
  });
  assert.deepEqual(diffEverywhere(BASE, next).changes, [
    change({
      name: 'leaf',
      from: '1.0.0',
      to: '2.0.0',
      kind: 'major',
      breaking: true,
      path: ['app-dep', 'mid', 'leaf'],
    }),
    change({ name: 'mid', from: '1.0.0', to: '1.1.0', kind: 'minor', path: ['app-dep', 'mid'] }),
  ]);
});

test('a dev dependency bump is marked dev', () => {
  const { changes } = diffEverywhere(BASE, head({ [nm('devtool')]: { version: '2.0.0', dev: true } }));
  assert.deepEqual(changes, [
    change({
      name: 'devtool',
      from: '1.0.0',
      to: '2.0.0',
      kind: 'major',
      breaking: true,
      direct: true,
      dev: true,
      path: ['devtool'],
    }),
  ]);
});

test('the diff is the same every time, and base and head swapped reverse it', () => {
  const next = head({ [nm('leaf')]: { version: '1.0.1' }, [nm('zero')]: { version: '0.3.2' } });
  const base = readLockfile(writeLockProject(BASE, 'pnpm'));
  const headLock = readLockfile(writeLockProject(next, 'pnpm'));
  const once = JSON.stringify(diffLockfiles(base, headLock));
  assert.equal(JSON.stringify(diffLockfiles(base, headLock)), once);
  const reversed = diffLockfiles(headLock, base);
  assert.deepEqual(
    reversed.map(({ name, from, to, kind }) => [name, from, to, kind]),
    [
      ['leaf', '1.0.1', '1.0.0', 'downgrade'],
      ['zero', '0.3.2', '0.3.1', 'downgrade'],
    ],
  );
});

test('lockfiles of two formats compare (a migration from yarn to pnpm)', () => {
  const next = head({ [nm('leaf')]: { version: '1.0.1' } });
  const changes = diffLockfiles(
    readLockfile(writeLockProject(BASE, 'yarn-classic')),
    readLockfile(writeLockProject(next, 'pnpm')),
  );
  assert.deepEqual(
    changes.map(({ name, from, to }) => [name, from, to]),
    [['leaf', '1.0.0', '1.0.1']],
  );
});
