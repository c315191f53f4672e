import { JSONStringify, String } from '../../tracer/primordials.js';
import type { Handle } from '../patch.js';
import { real } from '../real.js';
import type { Recorder } from '../recorder.js';
import type { Tests } from '../tests.js';
import { addProbe } from './probe.js';

/**
 * node:test (Node 20, 22, 24) makes each test, suite and hook an AsyncResource of type `Test`
 * (internal/test_runner/test.js), and runs its function in its own async scope
 * (`runInAsyncScope`): a hook's resource is made where the hook was declared and serves every
 * test it runs for, so no context is the ancestor of a test's `beforeEach` hooks and body. The
 * hook hears of each resource as it is made (the context tracker's probe, before its fields are
 * set) and gives it own methods: `run`, where a test begins (before its `before`, `beforeEach`
 * hooks), `postRun`, where it ends (after its `afterEach` hooks, its result final, before the
 * tests queued behind it start), and `runInAsyncScope`, which
 * puts the test's scope on the context that runs the test's function and each `beforeEach` and
 * `afterEach` hook's. Nothing needs adding to the command: this works in `node --test`'s children,
 * under `--experimental-test-isolation=none` and in `node file.test.js` alike. Node attributes no
 * console output to a test: the stdout writes between a test's start and end are its output.
 * Control mode only (see watchNodeTest).
 */
interface TestLike {
  readonly name?: unknown;
  readonly parent?: TestLike | null;
  readonly hookType?: unknown;
  readonly constructor?: { readonly name?: unknown };
  readonly entryFile?: unknown;
  readonly skipped?: unknown;
  readonly passed?: unknown;
  readonly error?: { readonly message?: unknown; readonly cause?: unknown } | null;
  readonly runHook?: unknown;
}

type Method = (this: unknown, ...args: unknown[]) => unknown;

export function watchNodeTest(recorder: Recorder, tests: Tests): Handle {
  // Each method given would be a frame of the hook's in a failing test's stack, which the program
  // prints: in observe mode nothing is given, and node --test's children (one per file, named by
  // it) are compared whole, as the runner's output filters allow. In control mode the scopes
  // need the boundaries, and the frames are the same in every run.
  if (recorder.controller === null) return { uninstall() {} };
  const script = process.argv[1];
  let running: TestLike | null = null;
  const begun = (test: TestLike) => {
    running = test;
    tests.begin(fileOf(test, script), fullName(test), false);
  };
  const ended = (test: TestLike) => {
    if (running !== test) return;
    running = null;
    tests.end(outcome(test));
  };
  return addProbe(recorder.contexts, (type, resource) => {
    if (type !== 'Test' || typeof (resource as TestLike).runHook !== 'function') return;
    const test = resource as TestLike;
    const own = (name: string, method: Method) =>
      real.defineProperty(test, name, { configurable: true, writable: true, enumerable: false, value: method });
    own('run', function run(this: unknown, ...args: unknown[]) {
      // a suite, a hook, the file's root, or a subtest of a running test: not a test of its own
      if (running === null && test.parent != null && typeof test.hookType !== 'string' && !isSuite(test)) begun(test);
      return real.apply(inherited(test, 'run'), this, args);
    });
    // The test's result is final, its afterEach hooks done; its postRun starts the tests queued behind it.
    own('postRun', function postRun(this: unknown, ...args: unknown[]) {
      ended(test);
      return real.apply(inherited(test, 'postRun'), this, args);
    });
    own('runInAsyncScope', function runInAsyncScope(this: unknown, fn: unknown, ...rest: unknown[]) {
      if (typeof fn !== 'function' || running === null || !(running === test || isEachHook(test)))
        return real.apply(inherited(test, 'runInAsyncScope'), this, withFirst(fn, rest));
      const body = fn as Method;
      const entering = function (this: unknown, ...args: unknown[]) {
        tests.enter();
        return real.apply(body, this, args);
      };
      return real.apply(inherited(test, 'runInAsyncScope'), this, withFirst(entering, rest));
    });
  });
}

/** The method of the test's class that its own property of that name covers. */
function inherited(test: TestLike, name: string): Method {
  return real.get(real.getPrototypeOf(test) as object, name, test) as Method;
}

/** `[first, ...rest]` without the array iterator a program can replace. */
function withFirst(first: unknown, rest: unknown[]): unknown[] {
  const args = [first];
  for (let i = 0; i < rest.length; i++) args[args.length] = rest[i];
  return args;
}

function isEachHook(test: TestLike): boolean {
  return test.hookType === 'beforeEach' || test.hookType === 'afterEach';
}

/** A suite, or (in node --test's own process) the test that runs a file in a child. */
function isSuite(test: TestLike): boolean {
  const name = test.constructor?.name;
  return name === 'Suite' || name === 'FileTest';
}

function fileOf(test: TestLike, script: string | undefined): string {
  return typeof test.entryFile === 'string' ? test.entryFile : String(script ?? '');
}

/** The suites' names and the test's, joined by ` > ` (the file's root test left out). */
function fullName(test: TestLike): string {
  let name = String(test.name);
  for (let suite = test.parent; suite?.parent != null; suite = suite.parent) name = `${String(suite.name)} > ${name}`;
  return name;
}

/** `pass`, `skip`, or `fail` and the error's message (node:test wraps what the test threw in `cause`). */
function outcome(test: TestLike): string {
  if (test.skipped === true) return 'skip';
  if (test.passed === true) return 'pass';
  const error = test.error;
  const cause = error?.cause as { message?: unknown } | null | undefined;
  const message =
    cause !== null && typeof cause === 'object' && typeof cause.message === 'string' ? cause.message : error?.message;
  return `fail\n${typeof message === 'string' ? message : JSONStringify(message)}`;
}
