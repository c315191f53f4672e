/**
 * Tests as the unit, under Vitest 3 and Jest 30 run as users type them (the bin, `npx`, `npm test`,
 * `pnpm test`), from a cold cache: in control mode each test's values are its own, so the runs
 * agree however the runner hands files to its workers and whatever its own RPC draws; in observe
 * mode a test whose printed output depends on a dependency's Math.random is named, and the
 * dependency's line blamed; a bump that changes only a dependency's comments reads unchanged.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { direct, repository } from '../bump-fixtures.js';
import { appWith, lines, reportOf } from '../cli-fixtures.js';
import { CLI, REPO, runPlain } from '../helpers.js';
import { launcherEnv } from '../launcher-fixtures.js';

/** The dependency every test uses: a stamp of the clock and two draws, and a ranking by Math.random. */
const DEP = lines(
  "const { randomUUID } = require('node:crypto');",
  'exports.stamp = (label) => `${label}:${Date.now()}:${randomUUID().slice(0, 8)}:${Math.floor(Math.random() * 1000)}`;',
  "exports.rank = (items) => items.map((x) => [x, Math.random()]).sort((a, b) => a[1] - b[1]).map((p) => p[0]).join(',');",
);
const DEP_COMMENTED = lines('// 1.0.1: comments only', DEP.replace('exports.rank', '/* ranks items */ exports.rank'));

/** A test file whose tests read the clock in a hook and in the body, await a timer, and print what they drew. */
function suite(name: string): string {
  return lines(
    "import { beforeEach, describe, expect, test } from 'vitest';",
    "import dep from 'dep';",
    'let base;',
    'beforeEach(() => {',
    '  base = Date.now();',
    '});',
    `describe('${name}', () => {`,
    '  for (const n of [1, 2, 3]) {',
    "    test('case ' + n, async () => {",
    `      const stamp = dep.stamp('${name}' + n);`,
    '      await new Promise((resolve) => setTimeout(resolve, 2));',
    "      console.log('result', stamp, performance.now(), base, dep.rank(['x', 'y', 'z']));",
    `      expect(stamp.startsWith('${name}')).toBe(true);`,
    '    });',
    '  }',
    '});',
  );
}

const RANKING = lines(
  "import { test } from 'vitest';",
  "import dep from 'dep';",
  "test('ranking', () => {",
  // twelve items: two runs print the same order with odds 1 in 12!, not 1 in 24
  "  console.log('ranking', dep.rank([...'abcdefghijkl']));",
  '});',
);

/** The same suite for Jest: CommonJS, its globals, no transform (babel-jest's cache is the warm-up's). */
function jestSuite(name: string): string {
  return suite(name)
    .replace("import { beforeEach, describe, expect, test } from 'vitest';\n", '')
    .replace("import dep from 'dep';", "const dep = require('dep');");
}

const JEST_SUITE = {
  'test/a.test.js': jestSuite('a'),
  'test/b.test.js': jestSuite('b'),
  'test/c.test.js': jestSuite('c'),
  'test/ranking.test.js': RANKING.replace("import { test } from 'vitest';\n", '').replace(
    "import dep from 'dep';",
    "const dep = require('dep');",
  ),
  // vendor/ holds both versions of a bump fixture's dependency: Jest's module map would see two `dep`s
  'jest.config.json':
    '{ "transform": {}, "cacheDirectory": "node_modules/.cache/jest", "modulePathIgnorePatterns": ["<rootDir>/vendor/"] }\n',
  '.npmrc': 'update-notifier=false\noffline=true\nfund=false\naudit=false\n',
};

const SUITE = {
  'test/a.test.mjs': suite('a'),
  'test/b.test.mjs': suite('b'),
  'test/c.test.mjs': suite('c'),
  'test/ranking.test.mjs': RANKING,
  '.npmrc': 'update-notifier=false\noffline=true\nfund=false\naudit=false\n',
};

/** Vitest linked in, with its bin where npx and npm's scripts find it. */
function linkVitest(dir: string): void {
  symlinkSync(join(REPO, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'junction');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../vitest/vitest.mjs', join(dir, 'node_modules', '.bin', 'vitest'));
}

function suiteProject(): string {
  const dir = appWith(SUITE, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
  const manifest = { name: 'fixture-app', version: '1.0.0', private: true, scripts: { test: 'vitest run' } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { dep: '1.0.0' } }));
  linkVitest(dir);
  return dir;
}

/** Jest linked in, with its bin where npx and npm's scripts find it. */
function jestProject(): string {
  const dir = appWith(JEST_SUITE, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
  const manifest = { name: 'fixture-app', version: '1.0.0', private: true, scripts: { test: 'jest' } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { dep: '1.0.0' } }));
  symlinkSync(join(REPO, 'node_modules', 'jest'), join(dir, 'node_modules', 'jest'), 'junction');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../jest/bin/jest.js', join(dir, 'node_modules', '.bin', 'jest'));
  return dir;
}

const env = launcherEnv();
const detdrift = (dir: string, ...args: string[]) => runPlain([CLI, ...args], { cwd: dir, env });
/** Vitest's results cache (durations, which decide the order of files): a fresh checkout has none. */
const coldCache = (dir: string) => {
  rmSync(join(dir, 'node_modules', '.vite'), { recursive: true, force: true });
  rmSync(join(dir, 'node_modules', '.cache'), { recursive: true, force: true });
};

/** Each way users start Vitest, and how many runs to compare: ten through npx, the README's recipe. */
const COMMANDS: Readonly<Record<string, { readonly command: readonly string[]; readonly runs: number }>> = {
  npx: { command: ['npx', 'vitest', 'run'], runs: 10 },
  bin: { command: [process.execPath, 'node_modules/vitest/vitest.mjs', 'run'], runs: 3 },
  'npm test': { command: ['npm', 'test'], runs: 3 },
  'pnpm test': { command: ['pnpm', 'test'], runs: 3 },
};

for (const [how, { command, runs }] of Object.entries(COMMANDS)) {
  test(`vitest through ${how}, control mode, cold cache: ${runs} runs agree test by test`, () => {
    const dir = suiteProject();
    coldCache(dir);
    const run = detdrift(
      dir,
      'check',
      '--mode',
      'control',
      '--seed',
      '42',
      '--runs',
      String(runs),
      '--json',
      '--',
      ...command,
    );
    const report = reportOf(run, 0);
    assert.equal(report.verdict, 'agree');
    assert.deepEqual(report.tests, { compared: 10, differing: 0, first: null });
  });
}

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

/** The suite for Mocha (its globals) and node:test (its module): CommonJS, node:assert. */
function plainSuite(name: string, runner: 'mocha' | 'node:test'): string {
  const body = jestSuite(name)
    .replace("const dep = require('dep');", "const dep = require('dep');\nconst assert = require('node:assert');")
    .replace(`expect(stamp.startsWith('${name}')).toBe(true);`, `assert.ok(stamp.startsWith('${name}'));`);
  if (runner === 'mocha') return body.replace("test('case ' + n", "it('case ' + n");
  return `const { beforeEach, describe, test } = require('node:test');\n${body}`;
}

/** Mocha and node --test on the same suite, in control mode: the tests agree one by one. */
const OTHERS = {
  'mocha 11': { runner: 'mocha', link: 'mocha', command: ['npx', 'mocha'] },
  'node --test': { runner: 'node:test', link: null, command: [process.execPath, '--test'] },
} as const;

for (const [label, { runner, link, command }] of Object.entries(OTHERS)) {
  test(`${label}, control mode: 3 runs agree test by test`, () => {
    const files = Object.fromEntries(['a', 'b', 'c'].map((name) => [`test/${name}.test.js`, plainSuite(name, runner)]));
    const dir = appWith(files, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
    if (link) {
      symlinkSync(join(REPO, 'node_modules', link), join(dir, 'node_modules', link), 'junction');
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(`../${link}/bin/${link}.js`, join(dir, 'node_modules', '.bin', link));
    }
    const run = detdrift(dir, 'check', '--mode', 'control', '--seed', '42', '--runs', '3', '--json', '--', ...command);
    const report = reportOf(run, 0);
    assert.equal(report.verdict, 'agree');
    assert.deepEqual(report.tests, { compared: 9, differing: 0, first: null });
  });
}

const JEST_COMMANDS: Readonly<Record<string, { readonly command: readonly string[]; readonly runs: number }>> = {
  npx: { command: ['npx', 'jest'], runs: 5 },
  'npm test': { command: ['npm', 'test'], runs: 3 },
};

for (const [how, { command, runs }] of Object.entries(JEST_COMMANDS)) {
  test(`jest 30 through ${how}, control mode, cold cache: ${runs} runs agree test by test`, () => {
    const dir = jestProject();
    coldCache(dir);
    const run = detdrift(
      dir,
      'check',
      '--mode',
      'control',
      '--seed',
      '42',
      '--runs',
      String(runs),
      '--json',
      '--',
      ...command,
    );
    const report = reportOf(run, 0);
    assert.equal(report.verdict, 'agree');
    assert.deepEqual(report.tests, { compared: 10, differing: 0, first: null });
  });
}

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

/** Each runner's suite, the package linked in by the install, and the command a bump runs. */
const BUMPED = {
  vitest: { files: SUITE, link: 'vitest', command: ['node_modules/vitest/vitest.mjs', 'run'] },
  'jest 30': { files: JEST_SUITE, link: 'jest', command: ['node_modules/jest/bin/jest.js'] },
};

for (const [runner, { files, link, command }] of Object.entries(BUMPED)) {
  test(`${runner}: a bump that changes only comments of the dependency every test uses reads unchanged`, () => {
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
      ),
    });
    execFileSync(process.execPath, ['install.cjs'], { cwd: dir });
    for (let attempt = 0; attempt < 3; attempt++) {
      const install = `${process.execPath} install.cjs`;
      const run = detdrift(
        dir,
        'bump',
        '--base',
        'HEAD~1',
        '--seed',
        '7',
        '--install',
        install,
        '--json',
        '--',
        process.execPath,
        ...command,
      );
      const report = reportOf(run, 0);
      assert.equal(report.verdict, 'agree', `attempt ${attempt + 1}`);
      assert.equal(report.tests?.compared, 10);
    }
  });
}
