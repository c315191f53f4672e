/**
 * `check` from cold caches, as on a fresh CI checkout: each check starts with the runner's cache
 * removed. Jest with two test files orders them by size when it has no durations cached and by
 * duration when it has (and runs in band or not by them): run 1 cold and run 2 warm run the files
 * in other orders, which tests compared one by one survive. The warm-up run (`--warmup auto`, the
 * default) makes the comparison the warm one all the same. Vitest's results cache orders files the
 * same way; its one-file run agrees cold today, so only the warm-up is asserted there.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { appWith, lines, listing, reportOf } from '../cli-fixtures.js';
import { CLI, REPO, runPlain, tempDir } from '../helpers.js';
import { renderSummary } from '../../report/summary.js';
import { renderTerminal } from '../../report/terminal.js';
import type { Report } from '../../report/types.js';
import { RUNNERS, runnerProject } from '../runner-fixtures.js';

/** A test that writes what its loop and its draw decide: the same in every run in control mode, where the draw is seeded. */
const testFile = (name: string, spins: number) =>
  lines(
    "const { writeFileSync } = require('node:fs');",
    '',
    `test('${name}', () => {`,
    '  let x = 1;',
    `  for (let i = 0; i < ${spins}; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;`,
    `  writeFileSync('${name}.txt', String(x + Math.random()));`,
    '});',
  );

/**
 * Jest (its default transform, babel-jest) on two files: `big` is the larger and the quicker, `slow`
 * the smaller and the slower (a second or so of arithmetic in Jest's `vm` context, longer than `big`
 * takes even when it loads Babel cold), so Jest's cold order and its warm order are not one. Its
 * cache is inside the project, where a check can remove it.
 */
function jestProject(): { dir: string; cache: string } {
  const dir = appWith({
    'test/big.test.js': `// ${'padding '.repeat(2000)}\n${testFile('big', 1000)}`,
    'test/slow.test.js': testFile('slow', 10_000_000),
    'jest.config.json': '{ "cacheDirectory": "<rootDir>/.jest-cache" }\n',
    // the runner started by a script of the project's: only the run's stacks show it is Jest
    'run-tests.js': "require('jest/bin/jest');\n",
  });
  mkdirSync(join(dir, 'node_modules'), { recursive: true });
  symlinkSync(join(REPO, 'node_modules', 'jest'), join(dir, 'node_modules', 'jest'), 'junction');
  return { dir, cache: join(dir, '.jest-cache') };
}

const JEST = [process.execPath, 'node_modules/jest/bin/jest.js'];

/** `check --runs 2` of `command` in `dir`, its traces kept in `out`. */
function check(dir: string, command: readonly string[], ...options: string[]) {
  const out = join(tempDir(), 'runs');
  const run = runPlain(
    [CLI, 'check', '--runs', '2', '--no-confirm', ...options, '--out', out, '--json', '--', ...command],
    {
      cwd: dir,
    },
  );
  return { run, out };
}

/** `check` from a cold cache: `cache` is removed first. */
function coldCheck(dir: string, cache: string, command: readonly string[], ...options: string[]) {
  rmSync(cache, { recursive: true, force: true });
  return check(dir, command, ...options);
}

// One project per runner, shared by its cases: the cache is what each case removes.
let jest: ReturnType<typeof jestProject> | null = null;
const jestFixture = () => (jest ??= jestProject());

test('jest from a cold cache, no warm-up: the files run in another order, and the tests still agree one by one', () => {
  const { dir, cache } = jestFixture();
  const { run } = coldCheck(dir, cache, JEST, '--mode', 'control', '--warmup', 'off');
  // Run 1 (cold) and run 2 (warm) run the files in other orders: compared as whole processes they
  // part; compared test by test, each test drew from its own streams, and agrees.
  const report = reportOf(run, 0);
  assert.equal(report.verdict, 'agree');
  assert.deepEqual(report.tests, { compared: 2, differing: 0, first: null });
  assert.equal(report.warmup, null);
});

test('jest from a cold cache: a warm-up run, named by the command, and the runs agree (control mode)', () => {
  const { dir, cache } = jestFixture();
  const { run, out } = coldCheck(dir, cache, JEST, '--mode', 'control');
  const report = reportOf(run, 0);
  assert.equal(report.verdict, 'agree');
  assert.deepEqual(report.warmup, { runners: ['jest'], found: 'command' });
  // the warm-up's traces are set aside; run-1 and run-2 are the runs compared
  assert.deepEqual(listing(out).sort(), ['run-1', 'run-2', 'warmup']);
  assertShown(report, 'a first run, not compared, filled the caches of jest (named by the command)');
});

test("jest from a cold cache, started by the project's script: the run's stacks show it", () => {
  const { dir, cache } = jestFixture();
  const report = reportOf(coldCheck(dir, cache, [process.execPath, 'run-tests.js'], '--mode', 'control').run, 0);
  assert.equal(report.verdict, 'agree');
  assert.deepEqual(report.warmup, { runners: ['jest'], found: 'traces' });
});

let vitest: string | null = null;

for (const mode of ['control', 'observe']) {
  test(`vitest from a cold cache (node_modules/.vite removed): a warm-up run, and the runs agree (${mode} mode)`, () => {
    const dir = (vitest ??= runnerProject(RUNNERS.forks, '1.0.0'));
    const cache = join(dir, 'node_modules', '.vite');
    const { run } = coldCheck(dir, cache, RUNNERS.forks.command, '--mode', mode);
    assert.ok(existsSync(cache), 'the run made the cache the check removed');
    const report = reportOf(run, 0);
    assert.equal(report.verdict, 'agree');
    assert.deepEqual(report.warmup, { runners: ['vitest'], found: 'command' });
  });
}

test('a command with no runner makes no warm-up run, and --warmup on makes one', () => {
  const dir = appWith({ 'app.js': "require('node:fs').writeFileSync('out.txt', String(Math.random() >= 0));\n" });
  const plain = check(dir, [process.execPath, 'app.js'], '--mode', 'control');
  assert.equal(reportOf(plain.run, 0).warmup, null);
  assert.deepEqual(listing(plain.out).sort(), ['run-1', 'run-2']);
  const on = check(dir, [process.execPath, 'app.js'], '--mode', 'control', '--warmup', 'on');
  assert.deepEqual(reportOf(on.run, 0).warmup, { runners: [], found: 'option' });
  assert.deepEqual(listing(on.out).sort(), ['run-1', 'run-2', 'warmup']);
});

test('--warmup takes auto, on or off', () => {
  const run = runPlain([CLI, 'check', '--warmup', 'maybe', '--', process.execPath, '-e', '0'], { cwd: tempDir() });
  assert.equal(run.code, 2);
  assert.match(run.stderr, /--warmup got "maybe"; allowed: auto, on, off/);
});

/** The warm-up is one line of the terminal report and of the job summary. */
function assertShown(report: Report, words: string): void {
  const terminal = renderTerminal(report, { color: false }).split('\n');
  assert.deepEqual(
    terminal.filter((line) => line.includes('warm-up')),
    [`  warm-up: ${words}`],
  );
  assert.ok(renderSummary(report).includes('\n\nWarm-up: a first run, not compared, filled the caches of `jest`'));
}
