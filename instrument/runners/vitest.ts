import { sep } from 'node:path';
import { ArrayIsArray, JSONStringify, Proxy, SafeMap, String, StringEndsWith } from '../../tracer/primordials.js';
import type { Handle } from '../patch.js';
import { real } from '../real.js';
import type { Recorder } from '../recorder.js';
import type { Tests } from '../tests.js';
import { addProbe } from './probe.js';

/**
 * Vitest 3 runs test files in tinypool's workers (child processes for `forks`, threads for
 * `threads`), whose entry scripts these are. Its config cannot be extended from the command line
 * (no `--setupFiles`, no `--runner`), so the hook reads what Vitest's own runner writes down:
 * `globalThis.__vitest_worker__.current`, the task it runs, set to a test as the test begins
 * (`onBeforeRunTask`, in the async context that runs the test's hooks and body) and back to its
 * suite as it ends (`onAfterRunTask`, once its result is final). The console output Vitest
 * attributes to a test reaches its RPC's `onUserConsoleLog`.
 */
const WORKER_ENTRIES = ['tinypool/dist/entry/process.js', 'tinypool/dist/entry/worker.js'].map((entry) =>
  sep === '/' ? entry : entry.split('/').join(sep),
);

const STATE = '__vitest_worker__';

/**
 * Whether this thread may be one of Vitest's workers: its main script is a tinypool entry. A worker
 * thread's `process.argv` gets its script only after the preloads ran: there it is asked again at
 * the first probe (watchVitest).
 */
export function mayBeVitestWorker(script: string | undefined, mainThread: boolean): boolean {
  return !mainThread || isVitestWorker(script);
}

function isVitestWorker(script: unknown): boolean {
  if (typeof script !== 'string') return false;
  for (let i = 0; i < WORKER_ENTRIES.length; i++) if (StringEndsWith(script, WORKER_ENTRIES[i]!)) return true;
  return false;
}

interface Task {
  readonly type?: unknown;
  readonly id?: unknown;
  readonly name?: unknown;
  readonly suite?: Task;
  readonly file?: Task & { readonly filepath?: unknown };
  readonly result?: { readonly state?: unknown; readonly errors?: unknown };
}

interface ConsoleLog {
  readonly content?: unknown;
  readonly taskId?: unknown;
}

export interface VitestWatch extends Handle {
  /** A `vm` context was made (the vmThreads pool provides its state to the one it runs a file in). */
  realm(global: object): void;
}

/**
 * Watches for each worker state Vitest provides (one per test file where files share a worker),
 * from the context tracker's probe: the state appears while the worker loads, long before a test.
 */
export function watchVitest(recorder: Recorder, tests: Tests): VitestWatch {
  let realm: Record<string, unknown> | null = null;
  let seen: unknown;
  let checked = false;
  let vitest = true;
  const handle = addProbe(recorder.contexts, () => {
    if (!checked) {
      const script = process.argv[1];
      if (script === undefined) return; // a worker's preloads still run
      checked = true;
      vitest = isVitestWorker(script);
    }
    if (!vitest) return;
    const state = (globalThis as Record<string, unknown>)[STATE] ?? realm?.[STATE];
    if (state === seen || state === null || typeof state !== 'object') return;
    seen = state;
    instrument(state as Record<string, unknown>, tests);
  });
  return {
    realm(global) {
      realm = global as Record<string, unknown>;
    },
    uninstall: handle.uninstall,
  };
}

function instrument(state: Record<string, unknown>, tests: Tests): void {
  let current = state.current as Task | undefined;
  let running: Task | null = null;
  real.defineProperty(state, 'current', {
    configurable: true,
    enumerable: true,
    get: () => current,
    set(task: Task | undefined) {
      current = task;
      if (task !== null && typeof task === 'object' && task.type === 'test') {
        running = task;
        tests.begin(String(task.file?.filepath ?? ''), fullName(task));
      } else if (running !== null) {
        const ended = running;
        running = null;
        tests.end(outcome(ended));
      }
    },
  });
  const rpc = state.rpc;
  if (rpc === null || typeof rpc !== 'object') return;
  // Each RPC message draws an id (Math.random): the runner's, wherever it is sent from.
  const methods = new SafeMap<PropertyKey, unknown>();
  const method = (target: object, key: PropertyKey) => {
    let wrapped = methods.get(key);
    if (wrapped === undefined) {
      wrapped = (...args: unknown[]) => {
        if (key === 'onUserConsoleLog') consoleLog(args[0] as ConsoleLog);
        return tests.outside(() => real.apply(real.get(target, key) as (...args: unknown[]) => unknown, target, args));
      };
      methods.set(key, wrapped);
    }
    return wrapped;
  };
  const consoleLog = (entry: ConsoleLog) => {
    if (running !== null && entry?.taskId === running.id) tests.output(String(entry.content));
  };
  state.rpc = new Proxy(rpc, {
    __proto__: null,
    get: (target, key) => (typeof real.get(target, key) === 'function' ? method(target, key) : real.get(target, key)),
  } as ProxyHandler<object>);
}

/** The test's name under its suites, as Vitest shows it (`suite > test`), without the file. */
function fullName(task: Task): string {
  let name = String(task.name);
  for (let suite = task.suite; suite !== undefined && suite !== null && suite !== task.file; suite = suite.suite) {
    if (suite.name) name = `${String(suite.name)} > ${name}`;
  }
  return name;
}

/** `pass`, `skip`, or `fail` and the errors' messages: what must be the same in every run. */
function outcome(task: Task): string {
  const state = String(task.result?.state ?? 'unknown');
  const errors = task.result?.errors;
  if (state !== 'fail' || !ArrayIsArray(errors)) return state;
  let text = state;
  for (let i = 0; i < errors.length; i++) {
    const error = errors[i] as { message?: unknown } | null;
    text += `\n${typeof error?.message === 'string' ? error.message : JSONStringify(error)}`;
  }
  return text;
}
