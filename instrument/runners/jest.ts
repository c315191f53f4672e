import { ArrayIsArray, JSONStringify, Proxy, SafeWeakSet, String } from '../../tracer/primordials.js';
import type { Handle } from '../patch.js';
import { real } from '../real.js';
import type { Recorder } from '../recorder.js';
import type { Tests } from '../tests.js';
import { addProbe } from './probe.js';

/**
 * Jest 29 and 30 (jest-circus) run each test file in a `vm` context of its own (realms.ts hears of
 * each), where jest-circus keeps its state on the context's global under a symbol described
 * `JEST_STATE_SYMBOL`, and expect its own under `$$jest-matchers-object` (with the test file's
 * path). Nothing needs adding to Jest's command or config: the hook reads what jest-circus writes
 * down. Its first event handler sets `state.currentlyRunningTest` to the test as it starts, synchronously
 * in the context that goes on to run the test's `beforeEach` hooks, body and `afterEach` hooks (so
 * the test begins there: they are all in its scope), and sets the test's `status` to `skip`,
 * `todo` or `done` as it ends. A test's console output goes through the `_log` (and
 * `_logError`) of the console Jest puts on the context's global: Jest buffers it, and no stdout
 * write of the worker shows it.
 */
const MATCHERS = Symbol.for('$$jest-matchers-object');
const STATE = 'Symbol(JEST_STATE_SYMBOL)';
const ROOT = 'ROOT_DESCRIBE_BLOCK';
/** BufferedConsole's and CustomConsole's: each message, formatted, with its type */
const CONSOLE_METHODS = ['_log', '_logError'] as const;

interface TestEntry {
  readonly name?: unknown;
  readonly parent?: { readonly name?: unknown; readonly parent?: unknown };
  readonly errors?: unknown;
}

export interface JestWatch extends Handle {
  /** A `vm` context was made: its global is where the next test file's state will appear. */
  realm(global: object): void;
}

export function watchJest(recorder: Recorder, tests: Tests): JestWatch {
  let global: Record<PropertyKey, unknown> | null = null;
  let key: symbol | undefined;
  let seen: unknown;
  const handle = addProbe(recorder.contexts, () => {
    if (global === null) return;
    if (key === undefined) {
      if (global[MATCHERS] === undefined) return;
      key = stateKey(global);
      if (key === undefined) return;
    }
    const state = global[key];
    if (state === seen || state === null || typeof state !== 'object') return;
    seen = state;
    instrument(state as Record<string, unknown>, global, tests);
  });
  return {
    realm(made) {
      global = made as Record<PropertyKey, unknown>;
      key = undefined;
    },
    uninstall: handle.uninstall,
  };
}

/** Jest 29 makes its state's symbol with `Symbol()`, not `Symbol.for()`: found by its description. */
function stateKey(global: object): symbol | undefined {
  const keys = real.ownKeys(global);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    if (typeof key === 'symbol' && String(key) === STATE) return key;
  }
  return undefined;
}

function instrument(state: Record<string, unknown>, global: Record<PropertyKey, unknown>, tests: Tests): void {
  const watched = new SafeWeakSet<object>();
  let running: TestEntry | null = null;
  let current = state.currentlyRunningTest;
  real.defineProperty(state, 'currentlyRunningTest', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set(test: unknown) {
      current = test;
      if (test === null || typeof test !== 'object') return;
      running = test as TestEntry;
      if (!watched.has(test)) {
        watched.add(test);
        watchStatus(test as TestEntry, (status) => {
          if (running !== test) return;
          running = null;
          tests.end(status === 'done' ? outcome(test as TestEntry) : 'skip');
        });
      }
      tests.begin(testPath(global), fullName(test as TestEntry));
    },
  });
  const console = global.console as Record<string, unknown> | undefined;
  if (console !== null && typeof console === 'object') {
    for (let i = 0; i < CONSOLE_METHODS.length; i++) {
      const method = CONSOLE_METHODS[i]!;
      const original = console[method];
      if (typeof original !== 'function') continue;
      real.defineProperty(console, method, {
        configurable: true,
        writable: true,
        enumerable: false,
        value: new Proxy(original, {
          __proto__: null,
          apply(target, thisArg, args: unknown[]) {
            if (running !== null && args.length > 1) tests.output(String(args[1]));
            return real.apply(target, thisArg, args);
          },
        } as ProxyHandler<typeof original>),
      });
    }
  }
}

/** Calls `ended` when jest-circus sets the test's status to one it ends with. */
function watchStatus(test: TestEntry, ended: (status: string) => void): void {
  let status = (test as { status?: unknown }).status;
  real.defineProperty(test, 'status', {
    configurable: true,
    enumerable: true,
    get: () => status,
    set(value: unknown) {
      status = value;
      if (value === 'done' || value === 'skip' || value === 'todo') ended(value);
    },
  });
}

function testPath(global: Record<PropertyKey, unknown>): string {
  const matchers = global[MATCHERS] as { state?: { testPath?: unknown } } | undefined;
  return String(matchers?.state?.testPath ?? '');
}

/** The describe blocks' names and the test's, joined by spaces: Jest's `fullName`. */
function fullName(test: TestEntry): string {
  let name = String(test.name);
  for (let block = test.parent; block !== undefined && block !== null; block = block.parent as TestEntry['parent']) {
    if (block.name === ROOT) break;
    name = `${String(block.name)} ${name}`;
  }
  return name;
}

/** `pass`, or `fail` and each error's message (jest-circus keeps `[error, asyncError]` pairs). */
function outcome(test: TestEntry): string {
  const errors = test.errors;
  if (!ArrayIsArray(errors) || errors.length === 0) return 'pass';
  let text = 'fail';
  for (let i = 0; i < errors.length; i++) {
    const entry = errors[i];
    const error = (ArrayIsArray(entry) ? entry[0] : entry) as { message?: unknown } | null;
    text += `\n${typeof error?.message === 'string' ? error.message : JSONStringify(error)}`;
  }
  return text;
}
