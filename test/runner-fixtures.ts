/**
 * Fixture projects for the real test runners (test/diffing/test-runners.test.ts): one test file that reads
 * every clock and draws at known lines, and writes a result computed by a local dependency `dep`.
 * dep 1.0.0 is deterministic; 1.1.0 adds a Math.random() that changes the result. The runners are
 * the repository's pinned devDependencies, linked into the fixture's node_modules: Node resolves
 * a link to its real path, so their frames are `jest-runner@30.x/...`, and nothing is installed.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appWith, lines } from './cli-fixtures.js';
import { REPO } from './helpers.js';

export interface Runner {
  readonly label: string;
  /** the repository's package linked in as node_modules/<as> (jest29 is `npm:jest@29.7.0`) */
  readonly link: { readonly from: string; readonly as: string } | null;
  /** the command after `--`, as `npx ...` would run it */
  readonly command: readonly string[];
  readonly header: readonly string[];
  /** how the runner's test is opened and closed around the body */
  readonly open: string;
  readonly close: string;
  readonly files?: Readonly<Record<string, string>>;
}

const CJS = [
  "const { writeFileSync } = require('node:fs');",
  "const { randomUUID } = require('node:crypto');",
  "const { simulate } = require('dep');",
];
const bin = (path: string) => [process.execPath, `node_modules/${path}`];
// Jest runs the test as written: babel-jest's cache, cold in the first run and warm in the second,
// would move the test into other async contexts (test/diffing/typescript.test.ts runs Jest's transforms).
const NO_TRANSFORM = { 'jest.config.json': '{ "transform": {} }\n' };
const vitest = (pool: string): Runner => ({
  label: `vitest 3 (${pool})`,
  link: { from: 'vitest', as: 'vitest' },
  command: [...bin('vitest/vitest.mjs'), 'run', `--pool=${pool}`],
  header: [
    "import { writeFileSync } from 'node:fs';",
    "import { randomUUID } from 'node:crypto';",
    "import { test } from 'vitest';",
    "import { simulate } from 'dep';",
  ],
  open: "test('a seeded simulation', () => {",
  close: '});',
});

export const RUNNERS = {
  jest30: {
    label: 'jest 30',
    link: { from: 'jest', as: 'jest' },
    command: bin('jest/bin/jest.js'),
    header: CJS,
    open: "test('a seeded simulation', () => {",
    close: '});',
    files: NO_TRANSFORM,
  },
  jest29: {
    label: 'jest 29',
    link: { from: 'jest29', as: 'jest' },
    command: bin('jest/bin/jest.js'),
    header: CJS,
    open: "test('a seeded simulation', () => {",
    close: '});',
    files: NO_TRANSFORM,
  },
  forks: vitest('forks'),
  threads: vitest('threads'),
  vmThreads: vitest('vmThreads'),
  mocha: {
    label: 'mocha 11',
    link: { from: 'mocha', as: 'mocha' },
    command: bin('mocha/bin/mocha.js'),
    header: CJS,
    open: "it('a seeded simulation', () => {",
    close: '});',
  },
  nodeTest: {
    label: 'node --test',
    link: null,
    command: [process.execPath, '--test'],
    header: [...CJS, "const { test } = require('node:test');"],
    open: "test('a seeded simulation', () => {",
    close: '});',
  },
} satisfies Record<string, Runner>;

/**
 * The test's body: a result that only the seed decides (with dep 1.0.0), written, then each source
 * at a line of its own. The seeded call comes first: a frame moved by a transform's added lines
 * (vite adds one per import) cannot land on its line by chance.
 */
const BODY = [
  '  const result = simulate(42);',
  "  writeFileSync('result.txt', `${result}\\n`);",
  '  const draw = Math.random();',
  '  const now = Date.now();',
  '  const date = new Date();',
  '  const elapsed = performance.now();',
  '  const id = randomUUID();',
  "  if (typeof draw + typeof now + typeof date + typeof elapsed + typeof id !== 'numbernumberobjectnumberstring') throw new Error('a source changed type');",
];

export const TEST_FILE = 'test/sim.test.js';

export function testSource(runner: Runner): string {
  return lines(...runner.header, '', runner.open, ...BODY, runner.close);
}

export const DEP = {
  '1.0.0': lines(
    "'use strict';",
    'exports.simulate = function simulate(seed) {',
    '  let x = seed >>> 0;',
    '  for (let i = 0; i < 10; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;',
    '  return x;',
    '};',
  ),
  '1.1.0': lines(
    "'use strict';",
    'exports.simulate = function simulate(seed) {',
    '  let x = seed >>> 0;',
    '  for (let i = 0; i < 10; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;',
    '  // 1.1.0: a little jitter, "for realism" (unrounded: two runs print the same one with odds 2^-52, not 1/1000)',
    '  return x + Math.random() * 1000;',
    '};',
  ),
};

/** A project that runs `runner` on the test file, with dep at `version`. */
export function runnerProject(runner: Runner, version: keyof typeof DEP): string {
  const dir = appWith(
    { [TEST_FILE]: testSource(runner), ...runner.files },
    { name: 'dep', version, files: { 'index.js': DEP[version] } },
  );
  // A junction on Windows, where a directory symlink needs a privilege; the type is ignored elsewhere.
  if (runner.link)
    symlinkSync(join(REPO, 'node_modules', runner.link.from), join(dir, 'node_modules', runner.link.as), 'junction');
  return dir;
}
