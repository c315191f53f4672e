import assert from 'node:assert/strict';
import { test } from 'node:test';
import { classify, compareVersions } from '../../diffing/lockfile/index.js';

test('classification follows direction and caret ranges', () => {
  const cases: [string | null, string | null, string, boolean][] = [
    ['1.0.0', '1.0.1', 'patch', false],
    ['1.0.0', '1.2.0', 'minor', false],
    ['1.4.2', '2.0.0', 'major', true],
    ['2.0.0', '1.9.9', 'downgrade', true],
    ['1.0.1', '1.0.0', 'downgrade', true],
    ['0.3.1', '0.4.0', 'minor', true],
    ['0.3.1', '0.3.2', 'patch', false],
    ['0.0.1', '0.0.2', 'patch', true],
    ['1.0.0', '1.1.0-beta.1', 'prerelease', true],
    ['1.1.0-beta.1', '1.1.0-beta.2', 'prerelease', false],
    ['1.1.0-beta.2', '1.1.0', 'prerelease', false],
    ['1.0.0', '2.0.0-rc.1', 'prerelease', true],
    ['1.0.0+build.1', '1.0.0+build.2', 'patch', false],
    ['1.0.0', 'github:owner/repo#abc', 'major', true],
    [null, '1.0.0', 'added', false],
    ['1.0.0', null, 'removed', false],
  ];
  for (const [from, to, kind, breaking] of cases) {
    assert.deepEqual(classify(from, to), { kind, breaking }, `${from} -> ${to}`);
  }
});

test('versions order by semver, invalid ones last, and the order is total', () => {
  const sorted = ['10.0.0', 'zzz', '1.0.0-beta', '2.0.0', '1.0.0', 'abc', '1.0.0+b', '1.0.0+a'].sort(compareVersions);
  assert.deepEqual(sorted, ['1.0.0-beta', '1.0.0', '1.0.0+a', '1.0.0+b', '2.0.0', '10.0.0', 'abc', 'zzz']);
});
