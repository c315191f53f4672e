/**
 * The suites the tests-as-units tests run (test/cli/tests-as-units*.test.ts): three files whose
 * tests read the clock in a hook and in the body, await a timer and print what a dependency drew,
 * and a test that prints a ranking the dependency draws, for Vitest 3, Jest 30, Mocha 11 and
 * node:test; the real runners linked in, as installs link them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appWith, lines, reportOf } from './cli-fixtures.js';
import { CLI, REPO, runPlain } from './helpers.js';
import { launcherEnv } from './launcher-fixtures.js';

/** The dependency every test uses: a stamp of the clock and two draws, and a ranking by Math.random. */
export const DEP = lines(
  "const { randomUUID } = require('node:crypto');",
  'exports.stamp = (label) => `${label}:${Date.now()}:${randomUUID().slice(0, 8)}:${Math.floor(Math.random() * 1000)}`;',
  "exports.rank = (items) => items.map((x) => [x, Math.random()]).sort((a, b) => a[1] - b[1]).map((p) => p[0]).join(',');",
);
export const DEP_COMMENTED = lines(
  '// 1.0.1: comments only',
  DEP.replace('exports.rank', '/* ranks items */ exports.rank'),
);

/** A test file whose tests read the clock in a hook and in the body, await a timer, and print what they drew. */
export function suite(name: string): string {
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

export const RANKING = lines(
  "import { test } from 'vitest';",
  "import dep from 'dep';",
  "test('ranking', () => {",
  // twelve items: two runs print the same order with odds 1 in 12!, not 1 in 24
  "  console.log('ranking', dep.rank([...'abcdefghijkl']));",
  '});',
);

/** The same suite for Jest: CommonJS, its globals, no transform (babel-jest's cache is the warm-up's). */
export function jestSuite(name: string): string {
  return suite(name)
    .replace("import { beforeEach, describe, expect, test } from 'vitest';\n", '')
    .replace("import dep from 'dep';", "const dep = require('dep');");
}

export const JEST_SUITE = {
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

export const SUITE = {
  'test/a.test.mjs': suite('a'),
  'test/b.test.mjs': suite('b'),
  'test/c.test.mjs': suite('c'),
  'test/ranking.test.mjs': RANKING,
  '.npmrc': 'update-notifier=false\noffline=true\nfund=false\naudit=false\n',
};

/** Vitest linked in, with its bin where npx and npm's scripts find it. */
export function linkVitest(dir: string): void {
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(REPO, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'junction');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../vitest/vitest.mjs', join(dir, 'node_modules', '.bin', 'vitest'));
}

export function suiteProject(): string {
  const dir = appWith(SUITE, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
  const manifest = { name: 'fixture-app', version: '1.0.0', private: true, scripts: { test: 'vitest run' } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { dep: '1.0.0' } }));
  linkVitest(dir);
  return dir;
}

/** Jest linked in (30, or `jest29`: jest@29.7.0), with its bin where npx and npm's scripts find it. */
export function jestProject(jest: 'jest' | 'jest29' = 'jest'): string {
  const dir = appWith(JEST_SUITE, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
  const manifest = { name: 'fixture-app', version: '1.0.0', private: true, scripts: { test: 'jest' } };
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies: { dep: '1.0.0' } }));
  symlinkSync(join(REPO, 'node_modules', jest), join(dir, 'node_modules', 'jest'), 'junction');
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  symlinkSync('../jest/bin/jest.js', join(dir, 'node_modules', '.bin', 'jest'));
  return dir;
}

export const env = launcherEnv();
export const detdrift = (dir: string, ...args: string[]) => runPlain([CLI, ...args], { cwd: dir, env });
/** Vitest's results cache (durations, which decide the order of files): a fresh checkout has none. */
export const coldCache = (dir: string) => {
  rmSync(join(dir, 'node_modules', '.vite'), { recursive: true, force: true });
  rmSync(join(dir, 'node_modules', '.cache'), { recursive: true, force: true });
};

/**
 * `checks` checks in a row, each of five runs in control mode from a cold cache, taking the ways
 * of starting the suite in turn (the bin, npx, `npm test`...): every one agrees on every test.
 */
export function agreeInARow(
  dir: string,
  commands: readonly (readonly string[])[],
  checks: number,
  tests: number,
): void {
  for (let attempt = 1; attempt <= checks; attempt++) {
    coldCache(dir);
    const command = commands[(attempt - 1) % commands.length] ?? [];
    const args = ['check', '--mode', 'control', '--seed', '42', '--runs', '5', '--json', '--', ...command];
    const report = reportOf(detdrift(dir, ...args), 0);
    const which = `check ${attempt} of ${checks}, through ${command.join(' ')}`;
    assert.equal(report.verdict, 'agree', which);
    assert.deepEqual(report.tests, { compared: tests, differing: 0, first: null }, which);
  }
}

/** The suite for Mocha (its globals) and node:test (its module): CommonJS, node:assert. */
export function plainSuite(name: string, runner: 'mocha' | 'node:test'): string {
  const body = jestSuite(name)
    .replace("const dep = require('dep');", "const dep = require('dep');\nconst assert = require('node:assert');")
    .replace(`expect(stamp.startsWith('${name}')).toBe(true);`, `assert.ok(stamp.startsWith('${name}'));`);
  if (runner === 'mocha') return body.replace("test('case ' + n", "it('case ' + n");
  return `const { beforeEach, describe, test } = require('node:test');\n${body}`;
}
