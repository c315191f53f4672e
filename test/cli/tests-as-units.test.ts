/**
 * Tests as the unit under Vitest 3, run as users type it (the bin, `npx vitest run`, `npm test`,
 * `pnpm test`), from a cold cache: in control mode each test's values are its own, so the runs
 * agree however Vitest hands files to its workers and whatever its own RPC draws; in observe mode
 * a test whose printed output depends on a dependency's Math.random is named, and the
 * dependency's line blamed; a bump that changes only a dependency's comments reads unchanged.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { test } from 'node:test';
import { bumpOf, direct, repository } from '../bump-fixtures.js';
import { appWith, lines, reportOf } from '../cli-fixtures.js';
import { REPO } from '../helpers.js';
import {
  agreeInARow,
  DEP,
  DEP_COMMENTED,
  detdrift,
  env,
  JEST_SUITE,
  linkVitest,
  SUITE,
  suiteProject,
} from '../unit-fixtures.js';

/** Each way users start Vitest: the bin, the README's recipe (npx), and the package managers' scripts. */
const COMMANDS: readonly (readonly string[])[] = [
  [process.execPath, 'node_modules/vitest/vitest.mjs', 'run'],
  ['npx', 'vitest', 'run'],
  ['npm', 'test'],
  ['pnpm', 'test'],
];

test('vitest, control mode, cold cache: ten checks of 5 runs in a row, through the bin, npx, npm test and pnpm test in turn, agree test by test', () => {
  agreeInARow(suiteProject(), COMMANDS, 10, 10);
});

test('vitest, observe mode: the test whose printed ranking draws is named, and the draw in dep blamed', () => {
  const dir = suiteProject();
  const run = detdrift(dir, 'check', '--seed', '42', '--no-confirm', '--json', '--', 'npx', 'vitest', 'run');
  const report = reportOf(run, 1);
  assert.equal(report.verdict, 'diverge');
  const first = report.tests?.first;
  assert.ok(first, 'a differing test');
  // Every test prints a stamp of the clock: the first by file is a's first, and its output differs.
  assert.deepEqual([first.file, first.name, first.differs], ['test/a.test.mjs', 'a > case 1', 'output']);
  assert.equal(report.tests?.compared, 10);
  // the last draw before its output: the ranking's, a stack the test's first calls had taken
  assert.equal(report.cause?.package, 'dep@1.0.0');
  assert.equal(`${report.cause?.site?.file}:${report.cause?.site?.line}`, 'dep@1.0.0/index.js:3');

  const ranking = reportOf(
    detdrift(dir, 'check', '--seed', '42', '--no-confirm', '--json', '--', 'npx', 'vitest', 'run', 'ranking'),
    1,
  );
  assert.deepEqual([ranking.tests?.first?.file, ranking.tests?.first?.name], ['test/ranking.test.mjs', 'ranking']);
  assert.equal(ranking.cause?.api, 'Math.random');
  assert.equal(`${ranking.cause?.site?.file}:${ranking.cause?.site?.line}`, 'dep@1.0.0/index.js:3');
  assert.equal(ranking.cause?.firstPartySite?.file, 'test/ranking.test.mjs');
});

/** Each runner's suite, the package the install links in and its bin, and the command a bump runs (npx's). */
const BUMPED = {
  vitest: { files: SUITE, link: 'vitest', bin: 'vitest.mjs', command: ['npx', 'vitest', 'run'] },
  'jest 30': { files: JEST_SUITE, link: 'jest', bin: 'bin/jest.js', command: ['npx', 'jest'] },
};

for (const [runner, { files, link, bin, command }] of Object.entries(BUMPED)) {
  test(`${runner} through npx: a bump that changes only comments of the dependency every test uses reads unchanged, ten times`, () => {
    const side = (version: string, source: string) => ({
      tree: direct('dep', version),
      packages: { [`dep@${version}`]: source },
    });
    const target = JSON.stringify(join(REPO, 'node_modules', link));
    const dir = repository('npm-v3', '', side('1.0.0', DEP), side('1.0.1', DEP_COMMENTED), 'npm', {
      ...files,
      'install.cjs': lines(
        "require('./materialize.cjs');",
        "const { join } = require('node:path');",
        `require('node:fs').symlinkSync(${target}, join('node_modules', '${link}'), 'junction');`,
        "require('node:fs').mkdirSync(join('node_modules', '.bin'));",
        `require('node:fs').symlinkSync('../${link}/${bin}', join('node_modules', '.bin', '${link}'));`,
      ),
    });
    execFileSync(process.execPath, ['install.cjs'], { cwd: dir });
    for (let attempt = 0; attempt < 10; attempt++) {
      const run = bumpOf(dir, command, 'install.cjs', [], env);
      const report = reportOf(run, 0);
      assert.equal(report.verdict, 'agree', `attempt ${attempt + 1}`);
      assert.equal(report.tests?.compared, 10);
    }
  });
}

test("vitest, control mode: the runner's own clock reads inside a test (its progress throttle) leave the test's clock alone", () => {
  // The test reads the clock twice around waits long enough for Vitest's 100 ms progress throttle to fire inside it.
  const dir = appWith({
    'test/clock.test.mjs': lines(
      "import { test } from 'vitest';",
      "test('clock', async () => {",
      '  const start = Date.now();',
      '  for (let i = 0; i < 3; i++) await new Promise((resolve) => setTimeout(resolve, 150));',
      "  console.log('elapsed', Date.now() - start);",
      '});',
    ),
  });
  linkVitest(dir);
  const out = join(dir, 'trace');
  const run = detdrift(dir, 'record', '--mode', 'control', '--seed', '42', '--out', out, '--', 'npx', 'vitest', 'run');
  assert.equal(run.code, 0, run.stderr);
  // One virtual millisecond: the test's own second read, whatever the runner read meanwhile.
  assert.match(stripVTControlCharacters(run.stdout), /^elapsed 1$/m, run.stdout);
});
