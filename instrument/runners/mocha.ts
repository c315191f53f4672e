import { ArrayIncludes, ArrayIsArray, JSONStringify, String } from '../../tracer/primordials.js';
import { real } from '../real.js';
import type { Tests } from '../tests.js';

/**
 * Mocha 11 runs its tests in the process it starts in, from one chain of callbacks: the Runner
 * emits `test` synchronously in the context that then runs the test's `beforeEach` hooks, body
 * and `afterEach` hooks (each a `setImmediate` or a callback made from there), so the test
 * begins there and all of them are in its scope. `test end` comes before the `afterEach` hooks:
 * the test ends at the next hook that is not one of them, or the next test, or the suite's end.
 * The Runner is handed over by mocha-setup.ts, which the CLI adds to Mocha's command
 * (`--require`: Mocha calls its `mochaGlobalSetup` with the Runner as `this`). Mocha's reporters
 * write a test's console output to stdout as the test runs: the stdout writes between its start
 * and end are its output.
 */
interface MochaRunnable {
  readonly file?: unknown;
  readonly state?: unknown;
  readonly parent?: { readonly _afterEach?: unknown } | null;
  fullTitle?(): unknown;
  isPending?(): unknown;
}

interface MochaRunner {
  on(event: string, listener: (...args: never[]) => void): unknown;
}

export function attachMocha(tests: Tests, runner: unknown): void {
  if (runner === null || typeof runner !== 'object' || typeof (runner as MochaRunner).on !== 'function') return;
  const on = (event: string, listener: (...args: never[]) => void) =>
    real.apply((runner as MochaRunner).on, runner, [event, listener]);
  let current: MochaRunnable | null = null;
  let failures = '';
  /** the outcome of the test whose `afterEach` hooks run now */
  let ended: string | null = null;
  const flush = () => {
    if (ended === null) return;
    const outcome = ended;
    ended = null;
    current = null;
    tests.end(outcome);
  };
  const begin = (test: MochaRunnable) => {
    flush();
    current = test;
    failures = '';
    tests.begin(String(test.file ?? ''), String(real.apply(test.fullTitle!, test, [])));
  };
  on('test', begin);
  on('pending', (test: MochaRunnable) => {
    if (test !== current) begin(test);
  });
  on('fail', (runnable: MochaRunnable, error: { message?: unknown } | null) => {
    if (runnable !== current) return;
    const message = error?.message;
    failures += `\n${typeof message === 'string' ? message : JSONStringify(error)}`;
  });
  on('test end', (test: MochaRunnable) => {
    if (test !== current) return;
    if (typeof test.isPending === 'function' && real.apply(test.isPending, test, []) === true) ended = 'skip';
    else ended = test.state === 'passed' ? 'pass' : `fail${failures}`;
  });
  on('hook', (hook: MochaRunnable) => {
    const afterEach = hook.parent?._afterEach;
    if (ended !== null && !(ArrayIsArray(afterEach) && ArrayIncludes(afterEach, hook))) flush();
  });
  on('suite end', flush);
  on('end', flush);
}
