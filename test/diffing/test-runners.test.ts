/**
 * `detdrift check` on the real test runners (test/runner-fixtures.ts): a deterministic test run
 * agrees although the runner's own timings, ids and caches differ, and dep 1.1.0's draw is named
 * as the cause, through the test file's line. Each case records its runs once; its tests share them.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { causeOf, lineOf, reportOf } from '../cli-fixtures.js';
import { CLI, readTraces, runPlain, tempDir, type Run } from '../helpers.js';
import { DEP, RUNNERS, runnerProject, TEST_FILE, testSource, type Runner } from '../runner-fixtures.js';

interface Case {
  readonly runner: Runner;
  /** DETDRIFT_SITES for the runs, where not the default */
  readonly sites?: string;
  /** replay-confirm the cause (slow: a dozen runs), else the heuristic cause */
  readonly confirm?: boolean;
  /** the runner's noise differs in every run (mocha's "passing (5ms)" can repeat to the millisecond) */
  readonly noisy: boolean;
  /** run dep 1.1.0 too: left out where another case of the runner already asks what it would */
  readonly diverges: boolean;
  readonly todo: { readonly agree?: string; readonly diverge?: string; readonly line?: string };
}

const CASES: readonly Case[] = [
  { runner: RUNNERS.jest30, noisy: true, diverges: true, todo: {} },
  { runner: RUNNERS.jest29, noisy: true, diverges: true, todo: {} },
  // Vite moves the test file's lines (one more a static import): its inline source map puts them back.
  { runner: RUNNERS.forks, noisy: true, diverges: true, todo: {} },
  { runner: RUNNERS.threads, noisy: true, diverges: true, todo: {} },
  // vmThreads' workers run the CommonJS preload the CLI loads the hook with (an --import they did not).
  { runner: RUNNERS.vmThreads, noisy: true, diverges: true, todo: {} },
  { runner: RUNNERS.mocha, noisy: false, diverges: true, todo: {} },
  { runner: RUNNERS.nodeTest, confirm: true, noisy: true, diverges: true, todo: {} },
];

function check(kase: Case, dir: string, ...options: string[]): Run {
  const env = kase.sites ? { DETDRIFT_SITES: kase.sites } : {};
  const confirm = kase.confirm ? [] : ['--no-confirm'];
  return runPlain([CLI, 'check', '--seed', '7', ...confirm, ...options, '--json', '--', ...kase.runner.command], {
    cwd: dir,
    env,
  });
}

/** Runs `make` once, when a test first asks: the tests of a case share its runs. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | null = null;
  return () => (made ??= { value: make() }).value;
}

for (const kase of CASES) {
  const name = kase.sites ? `${kase.runner.label}, every stack taken` : kase.runner.label;

  test(`${name}: a deterministic test run agrees; the runner's own noise is left out`, {
    todo: kase.todo.agree,
  }, () => {
    const dir = runnerProject(kase.runner, '1.0.0');
    const out = join(tempDir(), 'runs');
    const report = reportOf(check(kase, dir, '--out', out), 0);
    assert.equal(report.verdict, 'agree');
    // Not agreement by seeing nothing: the test's own write is in a trace, at its line.
    const writes = [...readTraces(join(out, 'run-1')).values()].flatMap((trace) =>
      trace.events.filter(
        (event) => event.api === 'fs.writeFile' && trace.sites.get(event.site)?.frames[0]?.file === TEST_FILE,
      ),
    );
    assert.equal(writes.length, 1, 'the test wrote its result once, and the trace has it');
    if (!kase.noisy) return;
    // The same two runs with the runner's calls and outputs compared too: its noise is there. It parts
    // them when its printed timings differ (nearly always: Jest prints milliseconds), and its clock
    // values differ every time.
    writeFileSync(join(dir, 'detdrift.config.json'), '{ "runners": "off" }\n');
    const diffed = runPlain([CLI, 'diff', '--no-confirm', '--json', join(out, 'run-1'), join(out, 'run-2')], {
      cwd: dir,
    });
    const all = reportOf(diffed, diffed.code === 0 ? 0 : 1);
    assert.ok(
      all.verdict === 'diverge' || all.differences.uncontrolledValues > 0,
      `the runner's noise: ${JSON.stringify(all.differences)}`,
    );
  });

  if (!kase.diverges) continue;
  const diverged = once(() => reportOf(check(kase, runnerProject(kase.runner, '1.1.0')), 1));

  test(`${name}: with dep 1.1.0 the runs part, and its Math.random is the cause`, { todo: kase.todo.diverge }, () => {
    const report = diverged();
    const { verdict, api, package: pkg, site, confidence } = causeOf(report);
    const expected = {
      verdict: 'diverge',
      api: 'Math.random',
      package: 'dep@1.1.0',
      site: `dep@1.1.0/index.js:${lineOf(DEP['1.1.0'], 'Math.random')}`,
    };
    assert.deepEqual({ verdict, api, package: pkg, site }, expected);
    assert.equal(confidence, kase.confirm ? 'replay-confirmed' : 'heuristic');
    assert.equal(report.cause?.firstPartySite?.file, TEST_FILE);
  });

  test(`${name}: the cause's first project frame is the test file's line`, { todo: kase.todo.line }, () => {
    assert.equal(causeOf(diverged()).firstPartySite, `${TEST_FILE}:${lineOf(testSource(kase.runner), 'simulate(42)')}`);
  });
}
