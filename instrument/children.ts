import type ChildProcesses from 'node:child_process';
import type WorkerThreads from 'node:worker_threads';
import { createMirror } from '../tracer/mirror.js';
import { encode, HOOK_VARIABLES, VARS, type HookSettings } from '../tracer/settings.js';
import { LINEAGE_KEY, MIRROR_KEY, WORKER_KEY } from './lineage.js';
import { family, wrap, type Patcher } from './patch.js';
import { builtin, real } from './real.js';
import type { TraceHeader } from '../tracer/format.js';
import {
  ArgAt,
  ArrayCopy,
  ArrayIsArray,
  ObjectAssign,
  ObjectCreate,
  ObjectHasOwn,
  StringIndexOf,
  StringSlice,
  StringStartsWith,
} from '../tracer/primordials.js';
import { watchWorker } from './workers.js';

const SPAWN_VAR = VARS.spawn;
const TRACE_VAR = VARS.traceDir;

type Options = { env?: NodeJS.ProcessEnv } | null | undefined;

interface Session {
  /** this process's lineage name: its children's are `<lineage>.<n>` and `<lineage>.w<n>` */
  readonly lineage: string;
  readonly settings: HookSettings;
  /** the digest this process's header holds, passed on so no child reads and hashes the lockfile again */
  readonly lockfile: TraceHeader['lockfile'];
}

/** What children get, read from the environment as the program starts (the family may install later). */
export interface Children {
  readonly lineage: string;
  /** the hook variables a child gets, but its spawn name */
  readonly vars: Readonly<Record<string, string>>;
  /** their names, and the spawn name's */
  readonly keys: readonly string[];
  /** DETDRIFT_TRACE as the program started */
  readonly traceDir: string | undefined;
}

/** The session as children get it: call it before the program runs. */
export function childrenOf({ lineage, settings, lockfile }: Session): Children {
  const vars = sessionVars(settings, lockfile);
  return { lineage, vars, keys: [...Object.keys(vars), SPAWN_VAR], traceDir: process.env[TRACE_VAR] };
}

/**
 * Gives every child process (and, through installWorkers, worker thread) its lineage name, so its hook (carried by
 * NODE_OPTIONS) names its trace the same in every run: `<parent>.<n>` for the parent's n-th child
 * process, `<parent>.w<n>` for its n-th `new Worker` (eval workers count, though the hook does not
 * run in them). Numbers follow the order of the calls, not of the children's start or end.
 *
 * A child belongs to this recording unless the program gave it another DETDRIFT_TRACE (a test
 * harness starting its own recording, say): then its environment is left alone. Otherwise it gets
 * this process's settings with the trace directory and project root made absolute, so a child in
 * another cwd writes to the same place.
 */
export const install = family<Children>('children', (patcher, { lineage, vars: session, keys, traceDir: original }) => {
  const childProcess = builtin<typeof ChildProcesses>('node:child_process');
  let spawned = 0;
  const ours = (trace: string | undefined) => trace === undefined || trace === original;
  const childVars = () => ({ ...session, [SPAWN_VAR]: `${lineage}.${++spawned}` });

  // spawn, fork, exec and execFile all pass here with normalized options: the env as `envPairs`.
  patcher.method(childProcess.ChildProcess.prototype, 'spawn', {
    apply(target, thisArg, args: unknown[]) {
      const options = ArgAt(args, 0) as { envPairs?: unknown } | undefined;
      const vars = childVars();
      if (options && ArrayIsArray(options.envPairs)) {
        const pairs = options.envPairs as string[];
        if (ours(pairValue(pairs, TRACE_VAR))) options.envPairs = withPairs(pairs, vars, keys);
      }
      return real.apply(target, thisArg, args);
    },
  });

  // The synchronous forms normalize their options out of reach: give them an explicit env instead,
  // one that inherits the program's (Node copies inherited keys too) and adds ours on top.
  const withEnv = (options: Options): Options => {
    const vars = childVars();
    if (options != null && typeof options !== 'object') return options; // Node rejects it as before
    const env = options?.env ?? process.env;
    if (typeof env !== 'object' || env === null) return options; // whatever Node makes of it, unchanged
    return ours(env[TRACE_VAR])
      ? { ...options, env: ObjectAssign(ObjectCreate(env) as NodeJS.ProcessEnv, vars) }
      : options;
  };
  // spawnSync(file, args?, options?), execFileSync likewise, execSync(command, options?)
  const at = (args: unknown[]) => (ArgAt(args, 1) == null || ArrayIsArray(ArgAt(args, 1)) ? 2 : 1);
  // an index loop: the family may install in the program's time (deferred.ts), under its built-ins
  const forms = [
    ['spawnSync', at],
    ['execFileSync', at],
    ['execSync', () => 1],
  ] as const;
  for (let form = 0; form < forms.length; form++) {
    const name = forms[form]![0];
    const index = forms[form]![1];
    patcher.method(childProcess, name, {
      apply(target, thisArg, args: unknown[]) {
        const copy = ArrayCopy(args);
        const i = index(copy);
        copy[i] = withEnv(copy[i] as Options);
        return real.apply(target, thisArg, copy);
      },
    });
  }
});

/**
 * The worker threads' half of the children family: `new Worker` names its thread, and any worker
 * learns this thread's lineage (claimTraceFile says it where worker_threads was loaded already).
 */
export const installWorkers = family<Children>('workers', (patcher, { lineage }) => {
  const threads = builtin<typeof WorkerThreads>('node:worker_threads');
  threads.setEnvironmentData(LINEAGE_KEY, lineage);
  nameWorkers(patcher, threads, lineage);
});

/** The value of `key` among `KEY=value` pairs, undefined when it is not there. */
function pairValue(pairs: readonly string[], key: string): string | undefined {
  for (let i = 0; i < pairs.length; i++) {
    if (StringStartsWith(pairs[i]!, `${key}=`)) return StringSlice(pairs[i]!, key.length + 1);
  }
  return undefined;
}

/** `pairs` with each of `keys` set to its value in `vars`, in place of the pair it had. */
function withPairs(pairs: readonly string[], vars: Record<string, string>, keys: readonly string[]): string[] {
  const result: string[] = [];
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (!ObjectHasOwn(vars, StringSlice(pair, 0, StringIndexOf(pair, '=')))) result[result.length] = pair;
  }
  for (let i = 0; i < keys.length; i++) result[result.length] = `${keys[i]!}=${vars[keys[i]!]!}`;
  return result;
}

/**
 * Wraps `Worker` so each construction passes its name to the new thread as environment data, with
 * the shared memory its writer builds chunks in, which is watched here for the worker's end.
 */
function nameWorkers(patcher: Patcher, workerThreads: typeof WorkerThreads, lineage: string): void {
  const { Worker, getEnvironmentData, setEnvironmentData } = workerThreads;
  let started = 0;
  const named: typeof Worker = wrap(Worker, {
    construct(target, args, newTarget) {
      const before = getEnvironmentData(WORKER_KEY);
      const beforeMirror = getEnvironmentData(MIRROR_KEY);
      const mirror = createMirror();
      setEnvironmentData(WORKER_KEY, `${lineage}.w${++started}`);
      setEnvironmentData(MIRROR_KEY, mirror);
      try {
        const worker = real.construct(target, args, newTarget === named ? target : newTarget) as object;
        watchWorker(worker, mirror);
        return worker;
      } finally {
        // undefined deletes the keys again
        setEnvironmentData(WORKER_KEY, before as string);
        setEnvironmentData(MIRROR_KEY, beforeMirror as object | undefined);
      }
    },
  });
  patcher.value(workerThreads, 'Worker', named);
  patcher.value(Worker.prototype, 'constructor', named);
}

/**
 * This process's hook settings as a child should get them, and our pid: every hook variable set
 * here but the spawn name, the lockfile digest (the same root's, so the same file), and the trace
 * directory and root made absolute.
 */
function sessionVars(settings: HookSettings, lockfile: TraceHeader['lockfile']): Record<string, string> {
  const own: Record<string, string | undefined> = {
    ...encode({ traceDir: settings.traceDir, root: settings.root, lockfile }),
    [VARS.parent]: String(real.pid),
  };
  const vars: Record<string, string> = {};
  for (const key of HOOK_VARIABLES) {
    const value = ObjectHasOwn(own, key) ? own[key] : process.env[key];
    if (key !== SPAWN_VAR && value !== undefined) vars[key] = value;
  }
  return vars;
}
