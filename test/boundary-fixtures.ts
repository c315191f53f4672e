/**
 * Fixture suites for test boundaries under the real runners (test/instrument/test-boundaries.test.ts):
 * three test files of the same shape, whose tests draw clocks and ids through a local dependency
 * `dep` and print what they drew. One project holds a copy of the files for each runner, and the
 * runners are the repository's pinned devDependencies, linked in (test/runner-fixtures.ts).
 */
import { mkdirSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appWith, lines } from './cli-fixtures.js';
import { REPO } from './helpers.js';

export interface BoundaryRunner {
  readonly label: string;
  /** the folder of its test files in the project */
  readonly dir: string;
  /** the command after `--`, given the test files to run (project-relative) */
  command(files: readonly string[]): string[];
  /** the lines that bring describe, it and beforeEach into a test file */
  readonly header: readonly string[];
  /** the full name the runner gives a test in the describe block */
  inDescribe(group: string, test: string): string;
  /** where the runner attributes a test's console output: its own output events, or stdout writes */
  readonly output: 'test' | 'stdout';
}

export const FILES = ['a', 'b', 'c'] as const;
export type FileName = (typeof FILES)[number];

const bin = (path: string) => [process.execPath, `node_modules/${path}`];
/** Jest's config: no transform (test/runner-fixtures.ts says why), its cache in the project */
const JEST_CONFIG = '{ "transform": {}, "cacheDirectory": "<rootDir>/.cache" }\n';
const jest = (label: string, dir: string): BoundaryRunner => ({
  label,
  dir,
  // --ci: no snapshot writes; the files are patterns, matched against the paths under the config's folder
  command: (files) => [
    process.execPath,
    `${dir}/node_modules/jest/bin/jest.js`,
    '--ci',
    '--config',
    `${dir}/jest.config.json`,
    ...files,
  ],
  header: [],
  inDescribe: (group, test) => `${group} ${test}`,
  output: 'test',
});

export const BOUNDARY_RUNNERS = {
  jest30: jest('jest 30', 'jest30'),
  jest29: jest('jest 29', 'jest29'),
  mocha: {
    label: 'mocha 11',
    dir: 'mocha',
    command: (files) => [...bin('mocha/bin/mocha.js'), ...files],
    header: [],
    inDescribe: (group, test) => `${group} ${test}`,
    output: 'stdout',
  },
  nodeTest: {
    label: 'node --test',
    dir: 'node-test',
    command: (files) => [process.execPath, '--test', ...files],
    header: ["const { describe, it, beforeEach } = require('node:test');"],
    inDescribe: (group, test) => `${group} > ${test}`,
    output: 'stdout',
  },
} satisfies Record<string, BoundaryRunner>;

export const DEP = lines(
  "'use strict';",
  "const { randomUUID } = require('node:crypto');",
  'exports.draw = () => [Date.now(), Math.random(), randomUUID()];',
  'exports.later = (ms) => new Promise((resolve) => setTimeout(resolve, ms));',
);

/** The failing test's message: file a's only. */
export const FAILURE = 'a drift was expected here';

/** A test file: a describe with a beforeEach that reads the clock, an async test, a plain one; file a fails once. */
export function boundarySource(runner: BoundaryRunner, file: FileName): string {
  return lines(
    ...runner.header,
    "const { draw, later } = require('dep');",
    '',
    `describe('group ${file}', () => {`,
    '  let before;',
    '  beforeEach(() => {',
    '    before = Date.now();',
    '  });',
    "  it('reads in a describe', () => {",
    `    console.log('drew', JSON.stringify([before, ...draw()]));`,
    '  });',
    '});',
    '',
    "it('awaits a timer', async () => {",
    '  await later(5);',
    `  console.log('drew', JSON.stringify(draw()));`,
    '});',
    '',
    "it('draws plainly', () => {",
    `  console.log('drew', JSON.stringify(draw()));`,
    ...(file === 'a' ? [`  throw new Error('${FAILURE}');`] : []),
    '});',
  );
}

/** The full names of a file's tests, as the runner names them, in the order they run. */
export function testNames(runner: BoundaryRunner, file: FileName): string[] {
  return [runner.inDescribe(`group ${file}`, 'reads in a describe'), 'awaits a timer', 'draws plainly'];
}

/** The project-relative path of `file` for `runner`. */
export function testFile(runner: BoundaryRunner, file: FileName): string {
  return `${runner.dir}/${file}.test.js`;
}

/**
 * One project for every runner: each runner's test files in a folder of its own (jest's with a
 * config of their own and their jest linked there), dep in node_modules.
 */
export function boundaryProject(): string {
  const files: Record<string, string> = {};
  for (const runner of Object.values(BOUNDARY_RUNNERS) as BoundaryRunner[]) {
    for (const file of FILES) files[testFile(runner, file)] = boundarySource(runner, file);
  }
  files['jest30/jest.config.json'] = JEST_CONFIG;
  files['jest29/jest.config.json'] = JEST_CONFIG;
  const dir = appWith(files, { name: 'dep', version: '1.0.0', files: { 'index.js': DEP } });
  // A junction on Windows, where a directory symlink needs a privilege; the type is ignored elsewhere.
  const link = (from: string, to: string) => {
    mkdirSync(dirname(join(dir, to)), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', from), join(dir, to), 'junction');
  };
  link('mocha', 'node_modules/mocha');
  link('jest', 'jest30/node_modules/jest');
  link('jest29', 'jest29/node_modules/jest');
  return dir;
}
