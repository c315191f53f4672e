/**
 * Tests as the unit under Jest 30 and 29 (through npx, `npm test`, `pnpm test`, from a cold cache), Mocha 11 and
 * `node --test`: in control mode the runs agree test by test; in observe mode a test whose console
 * output depends on a dependency's Math.random is named, and the dependency's line blamed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { appWith, reportOf } from '../cli-fixtures.js';
import { REPO } from '../helpers.js';
import { agreeInARow, DEP, detdrift, jestProject, plainSuite } from '../unit-fixtures.js';

/** Each way users start Jest 30: the bin, the README's recipe (npx), and the package managers' scripts. */
const JEST_COMMANDS: readonly (readonly string[])[] = [
  [process.execPath, 'node_modules/jest/bin/jest.js'],
  ['npx', 'jest'],
  ['npm', 'test'],
  ['pnpm', 'test'],
];

test('jest 30, control mode, cold cache: ten checks of 5 runs in a row, through the bin, npx, npm test and pnpm test in turn, agree test by test', () => {
  agreeInARow(jestProject('jest'), JEST_COMMANDS, 10, 10);
});

test('jest 29 through npx, control mode, cold cache: a check of 5 runs agrees test by test', () => {
  agreeInARow(jestProject('jest29'), [['npx', 'jest']], 1, 10);
});

test("jest 30, observe mode: a test's console output is its own: the ranking test is named, the draw in dep blamed", () => {
  const dir = jestProject();
  const run = detdrift(dir, 'check', '--seed', '42', '--no-confirm', '--json', '--', 'npx', 'jest', 'ranking');
  const report = reportOf(run, 1);
  assert.equal(report.verdict, 'diverge');
  assert.deepEqual(
    [report.tests?.first?.file, report.tests?.first?.name, report.tests?.first?.differs],
    ['test/ranking.test.js', 'ranking', 'output'],
  );
  assert.equal(report.cause?.api, 'Math.random');
  assert.equal(`${report.cause?.site?.file}:${report.cause?.site?.line}`, 'dep@1.0.0/index.js:3');
  assert.equal(report.cause?.firstPartySite?.file, 'test/ranking.test.js');
});

/** Mocha and node --test on the same suite, in control mode: the tests agree one by one. */
const OTHERS = {
  'mocha 11': { runner: 'mocha', link: 'mocha', command: ['npx', 'mocha'] },
  'node --test': { runner: 'node:test', link: null, command: [process.execPath, '--test'] },
} as const;

for (const [label, { runner, link, command }] of Object.entries(OTHERS)) {
  test(`${label}, control mode: 5 runs agree test by test`, () => {
    const files = Object.fromEntries(['a', 'b', 'c'].map((name) => [`test/${name}.test.js`, plainSuite(name, runner)]));
    const dir = appWith(files, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
    if (link) {
      symlinkSync(join(REPO, 'node_modules', link), join(dir, 'node_modules', link), 'junction');
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(`../${link}/bin/${link}.js`, join(dir, 'node_modules', '.bin', link));
    }
    agreeInARow(dir, [command], 1, 9);
  });
}
