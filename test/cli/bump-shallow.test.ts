/**
 * `bump` in the checkout CI makes: one commit deep (actions/checkout's default), no `origin/main`
 * and no parent. The base is fetched as the ref needs it; where nothing can be fetched, the error
 * says the one line to add.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { json, shallowClone } from '../bump-fixtures.js';
import { detdrift } from '../cli-fixtures.js';

const bumpIn = (dir: string, base: string) =>
  detdrift(
    [
      'bump',
      '--base',
      base,
      '--seed',
      '7',
      '--mode',
      'observe',
      '--install',
      `${process.execPath} materialize.cjs`,
      '--json',
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );

for (const base of ['origin/main', 'HEAD~1', 'main']) {
  test(`a clone one commit deep: --base ${base} is fetched, and the bump is found`, () => {
    const clone = shallowClone();
    assert.equal(
      execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: clone, encoding: 'utf8' }).trim(),
      'true',
    );
    const report = json(bumpIn(clone, base), 1);
    assert.equal(report.bump.verdict, 'made-nondeterministic');
    assert.deepEqual(
      report.bump.changes.map((change: { name: string; from: string; to: string }) => [
        change.name,
        change.from,
        change.to,
      ]),
      [['dice', '1.0.0', '1.0.1']],
    );
  });
}

test('a shallow clone with no remote to fetch from: ERR_GIT_REF says to add fetch-depth: 0', () => {
  const clone = shallowClone();
  execFileSync('git', ['remote', 'remove', 'origin'], { cwd: clone });
  const run = bumpIn(clone, 'HEAD~1');
  assert.equal(run.code, 2);
  assert.match(run.stderr, /ERR_GIT_REF/);
  assert.match(run.stderr, /shallow/);
  assert.match(run.stderr, /fetch-depth: 0/);
});
