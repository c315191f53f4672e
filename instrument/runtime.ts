import { channel, subscribe } from 'node:diagnostics_channel';
import fs, { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_TABLE, Api } from '../tracer/apis.js';
import { FORMAT_NAME, FORMAT_VERSION, TRACE_EXTENSION, type TraceHeader } from '../tracer/format.js';
import { createPackageResolver } from '../tracer/stack.js';
import { TraceWriter, type Sink } from '../tracer/writer.js';
import { arm, disarm, type ChunkMirror } from '../tracer/mirror.js';
import { MirroredWriter } from '../tracer/mirrored-writer.js';
import {
  ArrayIncludes,
  ArrayIsArray,
  JSONStringify,
  SafeMap,
  String,
  StringStartsWith,
} from '../tracer/primordials.js';
import { HookError } from '../tracer/errors.js';
import { decode, digestLockfile, VARS, type HookSettings } from '../tracer/settings.js';
import { RUNTIME_CHANNEL, type RuntimeAsk } from './channel.js';
import { childrenOf, install as installChildren, installWorkers, type Children } from './children.js';
import { install as installClock, installPerformance } from './clock.js';
import { install as installCrypto } from './crypto.js';
import { fsState, install as installFs, installPromises as installFsPromises } from './fs.js';
import { install as installGenerated } from './generated.js';
import { install as installLifecycle } from './lifecycle.js';
import { install as installMessages } from './messages.js';
import { fileWrites, installFilePromises, installFiles, install as installOutput } from './output.js';
import { RootMask } from './root-mask.js';
import { lockfileMemo } from './lockfile-memo.js';
import { install as installProcess } from './process.js';
import { install as installRandom } from './random.js';
import { install as installRealms } from './realms.js';
import { install as installTimers } from './timers.js';
import { watchJest } from './runners/jest.js';
import { attachMocha } from './runners/mocha.js';
import { watchNodeTest } from './runners/node-test.js';
import { mayBeVitestWorker, watchVitest } from './runners/vitest.js';
import { Tests } from './tests.js';
import { Controller } from './control.js';
import { canDefer, installDeferred, type Accessor, type Deferred } from './deferred.js';
import { Perturber } from './perturb.js';
import { parsePerturbations, type Perturbation } from './perturb-dimensions.js';
import { Replayer } from './replay.js';
import {
  injectContextFault,
  injectRecordFault,
  installCounter,
  limitedWrite,
  readFaults,
  type Faults,
} from './faults.js';
import { isLauncher } from './launcher.js';
import { claimTraceFile, type Claimed } from './lineage.js';
import { batched, installToStringMask, type Handle } from './patch.js';
import { loadedThreads, messageOf, real, readJsonFile } from './real.js';
import { Recorder, type RecorderSources } from './recorder.js';
import type { SitePolicy } from './schedule.js';
import { traceSink } from './sink.js';

/**
 * detdrift's own install directory (the parent of `dist/`): its frames never count as sites. The
 * hook runs as one bundled script, dist/instrument/bundle.js (scripts/bundle-hook.mjs), at the
 * depth tsc gives this module, so both find the same directory.
 */
const OWN_DIR = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/**
 * A family, and what the program must load or read before it can reach what the family patches:
 * where that can wait (deferred.ts), it waits. Listed in the order Node 20 installs them all.
 */
interface Family {
  readonly install: () => Handle;
  readonly modules?: readonly string[];
  readonly reads?: readonly Accessor[];
}

/**
 * Node runs the preloads in its thread for asynchronous module loaders (`module.register`,
 * `--loader`) too, and there Node 22 fails every resolution once a `module.registerHooks` hook is
 * registered ("resolveSync() is not implemented"), which fails the program's imports with it (Node
 * 24 runs both). In that thread the families install up front, as on Node 20.
 */
function inLoaderThread(): boolean {
  const loaded = (process as { moduleLoadList?: unknown }).moduleLoadList;
  return ArrayIsArray(loaded) && ArrayIncludes(loaded, 'NativeModule internal/modules/esm/worker');
}

/** The families, in the order they install where none waits. */
function families(recorder: Recorder, tests: Tests, children: Children, root: string, mask: RootMask): Family[] {
  const files = fileWrites({ recorder, root, mask });
  const dirs = fsState(recorder);
  // The promise halves wait for `node:fs/promises`, which `fs.promises` loads on its first read:
  // most programs load `node:fs`, few its promises (an ESM facade of `node:fs` reads them all).
  const promises: Accessor[] = [[fs, 'promises']];
  // A worker thread learns its script after the preloads: there Vitest's adapter asks later.
  const vitest = mayBeVitestWorker(process.argv[1], loadedThreads()?.isMainThread ?? true)
    ? watchVitest(recorder, tests)
    : null;
  const jest = watchJest(recorder, tests);
  const realm = (global: object) => {
    jest.realm(global);
    vitest?.realm(global);
  };
  return [
    { install: () => installToStringMask(undefined) },
    { install: () => installLifecycle(recorder) },
    // Node's own cluster and test runner spawn through child_process without the program loading it
    {
      install: () => installChildren(children),
      modules: spawnsAtStart() ? undefined : ['child_process', 'cluster', 'test'],
    },
    { install: () => installWorkers(children), modules: ['worker_threads'] },
    { install: () => installClock(recorder) },
    // The classes (`Performance`, `Crypto`) are no way in: their methods need the instance, which only
    // these globals and the modules hand out. They are lazy data properties on Node 22 and 24,
    // which even a look at their descriptors would load.
    { install: () => installPerformance(recorder), modules: ['perf_hooks'], reads: [[globalThis, 'performance']] },
    { install: () => installRandom(recorder) },
    { install: () => installCrypto(recorder), modules: ['crypto'], reads: [[globalThis, 'crypto']] },
    { install: () => installTimers(recorder) },
    // fs/promises' Dirs are read through `fs.Dir.prototype`, which the sync half patches
    { install: () => installFs(dirs), modules: ['fs', 'fs/promises'] },
    { install: () => installFsPromises(dirs), modules: ['fs/promises'], reads: promises },
    { install: () => installProcess(recorder), modules: ['os'] },
    { install: () => installRealms(recorder, realm) },
    { install: () => installGenerated(recorder) },
    { install: () => installOutput({ recorder, root, mask }) },
    { install: () => installMessages(recorder) },
    { install: () => installFiles(files), modules: ['fs'] },
    { install: () => installFilePromises(files), modules: ['fs/promises'], reads: promises },
    { install: () => jest },
    ...(vitest === null ? [] : [{ install: () => vitest }]),
    { install: () => watchNodeTest(recorder, tests) },
  ];
}

/**
 * `node --test` and `--watch` (and their `--test-*`, `--watch-*` options) start children before the
 * program loads anything. Read without a regular expression, whose first use costs a start 50 µs.
 */
function spawnsAtStart(): boolean {
  const args = process.execArgv;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const name = StringStartsWith(arg, '--test') ? 6 : StringStartsWith(arg, '--watch') ? 7 : 0;
    if (name > 0 && (arg.length === name || arg[name] === '-' || arg[name] === '=')) return true;
  }
  return false;
}

export interface Runtime {
  readonly recorder: Recorder;
  /** where a test runner's tests begin and end (runners/ tell it) */
  readonly tests: Tests;
  /** a runner's object handed over by the file the runner loads (runners/mocha-setup.ts) */
  attachRunner(name: 'mocha', runner: unknown): void;
  /** `detdrift.checkpoint(label, value)` from the program */
  checkpoint(label: string, value: unknown): void;
  readonly lineage: string;
  readonly file: string;
  stop(): void;
}

/** Where values come from besides the real sources, once this process's lineage is known. */
type Sources = (lineage: string) => RecorderSources;

/**
 * Starts recording in this process: settings, lineage, the trace file, then every family, all
 * before it returns: a CommonJS preload (`--require`) has no later moment before the program runs.
 * Runs once per thread even when the hook is loaded twice (NODE_OPTIONS and an explicit --import):
 * the first to start answers on RUNTIME_CHANNEL (channel.ts). A failure here is reported on
 * stderr with its code, and the program runs on unrecorded. A package manager's process (a
 * launcher) starts nothing and answers null. `first`: the hook came first, was not
 * imported, and the process has no ES module preloads (register.cts firstPreload), so no ES module
 * has imported a builtin before it (deferred.ts).
 */
export function start(first = false): Runtime | null {
  const running = channel(RUNTIME_CHANNEL);
  if (running.hasSubscribers) {
    const ask: RuntimeAsk<Runtime> = {};
    running.publish(ask);
    return ask.runtime ?? null;
  }
  let started: Runtime | null = null;
  subscribe(RUNTIME_CHANNEL, (ask) => ((ask as RuntimeAsk<Runtime>).runtime = started));
  // npm, npx, pnpm, yarn: nothing recorded, nothing patched, the hook passed on as it came (launcher.ts)
  if (isLauncher(process.argv[1])) return null;
  try {
    const settings = decode(process.env, process.cwd());
    started = open(settings, loadSources(settings), readFaults(process.env), first);
    return started;
  } catch (error) {
    const code = String((error as { code?: unknown } | null)?.code ?? '');
    try {
      real.writeSync(
        real.stderrFd,
        `detdrift: ${code.startsWith('ERR_DETDRIFT_') ? code : 'ERR_DETDRIFT_START'}: ${messageOf(error)} (not recording; the program continues)\n`,
      );
    } catch {
      // stderr is gone: the program still runs, unrecorded
    }
    return null;
  }
}

/**
 * Claims the trace file, writes its header, then installs every family. A failure midway undoes
 * what was done (handles uninstalled, the file closed and removed), so the program runs exactly as
 * without the hook; the caller reports it.
 */
function open(settings: HookSettings, sources: Sources, faults: Faults, first: boolean): Runtime {
  const claimed = claimTrace(settings.traceDir, settings.spawn);
  const sink = traceSink(claimed.fd, claimed.file, settings.owner, limitedWrite(faults.writeLimit));
  const handles: Handle[] = [];
  let recorder: Recorder | null = null;
  let mask: RootMask | null = null;
  let tests: Tests | null = null;
  try {
    const given = sources(claimed.lineage);
    // The CLI computes the digest once per run; a bare hook, once per traced tree (children.ts passes it on).
    const lockfile = settings.lockfile ?? digestLockfile(settings.root, lockfileMemo());
    const sites = sitePolicy(settings, claimed.lineage);
    const traceHeader = header(settings, claimed.lineage, lockfile, given.perturber ?? null, sites);
    const writer = writeHeader(sink, traceHeader, claimed.mirror);
    if (claimed.mirror) arm(claimed.mirror, claimed.file);
    injectRecordFault(writer, faults.recordAt);
    const active = new Recorder(
      writer,
      settings.mode,
      {
        root: settings.root,
        ownDir: OWN_DIR,
        packageOf: createPackageResolver(readJsonFile),
        depth: 16,
        files: new SafeMap(),
      },
      sites,
      { ...given, promiseHooksAfter: faults.promiseHooksAfter },
    );
    recorder = active;
    mask = new RootMask(settings.root);
    tests = new Tests(active, settings.root, mask);
    const step = installCounter(faults.installAt);
    const all = families(
      active,
      tests,
      childrenOf({ lineage: claimed.lineage, settings, lockfile }),
      settings.root,
      mask,
    );
    const waiting: Deferred[] = [];
    const deferring = canDefer && !inLoaderThread();
    batched(() => {
      for (const { install, modules, reads } of all) {
        if (deferring && modules !== undefined) {
          waiting.push({ install, modules, reads });
          continue;
        }
        step();
        handles.push(install());
      }
      if (waiting.length === 0) return;
      step();
      handles.push(
        installDeferred(waiting, {
          installed: (handle) => void (handles[handles.length] = handle), // at the program's time: no Array.prototype of its
          failed: (error) => active.fail('ERR_DETDRIFT_PATCH', error),
          first,
        }),
      );
    });
    injectContextFault(active.contexts, faults.contextAt);
  } catch (error) {
    recorder?.halt();
    if (claimed.mirror) disarm(claimed.mirror);
    sink.close();
    real.unlinkSync(claimed.file);
    for (const handle of handles.reverse()) handle.uninstall();
    throw error;
  }
  return {
    recorder,
    tests: tests!,
    lineage: claimed.lineage,
    file: claimed.file,
    attachRunner: (_name, runner) => attachMocha(tests!, runner),
    checkpoint: (label, value) => recordCheckpoint(recorder, mask, label, value),
    stop() {
      for (const handle of handles.reverse()) handle.uninstall();
      recorder.finish(0);
      recorder.halt(); // a wrapper or listener left over must not write to a closed (or reused) descriptor
      if (claimed.mirror) disarm(claimed.mirror); // nor the parent, to a file this run is done with
      sink.close();
    },
  };
}

/** The trace file, or ERR_DETDRIFT_OPEN: a directory that cannot be made, a file that cannot be created. */
function claimTrace(traceDir: string, spawn: string | null): Claimed {
  try {
    return claimTraceFile(traceDir, spawn);
  } catch (error) {
    throw new HookError('ERR_DETDRIFT_OPEN', `cannot create a trace file in ${traceDir}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * The writer, once the header is written; a disk full already then is ERR_DETDRIFT_OPEN. A worker
 * given a mirror builds its chunks where its parent can write them out should it be terminated.
 */
function writeHeader(sink: Sink, traceHeader: TraceHeader, mirror: ChunkMirror | null): TraceWriter {
  try {
    return mirror ? new MirroredWriter(sink, traceHeader, mirror) : new TraceWriter(sink, traceHeader);
  } catch (error) {
    // the sink's message names the file
    throw new HookError('ERR_DETDRIFT_OPEN', `cannot write the trace header to ${(error as Error).message}`, {
      cause: error,
    });
  }
}

/**
 * Where values come from besides the real sources: control mode's seeded streams and clock, or the
 * recorded run that replay feeds back (whose own mode decides what a fresh value is after it).
 * Perturb's and replay's modules are imported by every mode (their top levels only define), so
 * that start-up needs no `await`: a `--require` preload cannot wait for one.
 */
function loadSources(settings: HookSettings): Sources {
  const hold = settings.hold;
  const seeded = () => new Controller(settings.seed ?? '0');
  if (settings.mode === 'control') return () => ({ controller: seeded(), hold });
  if (settings.mode === 'perturb') {
    // control mode's seeded sources, and what another machine would give in the named dimensions
    const perturbations = readPerturbations(settings.perturb);
    return () => ({ controller: seeded(), hold, perturber: new Perturber(settings.seed ?? '0', perturbations) });
  }
  if (settings.mode !== 'replay' || settings.replay === null) return () => ({ hold });
  const recorded = settings.replay;
  return (lineage) => {
    const file = join(recorded, lineage + TRACE_EXTENSION);
    if (!existsSync(file)) return { hold: true }; // a process the recording did not have runs fresh
    const limit =
      settings.replayLimit && settings.replayLimit.lineage === lineage ? settings.replayLimit.count : Infinity;
    const replayer = new Replayer(file, limit, settings.replayFresh);
    return { controller: replayer.mode === 'control' ? seeded() : null, replayer, hold: true };
  };
}

/** DETDRIFT_PERTURB's dimensions; perturb mode needs at least one. */
function readPerturbations(value: string): Perturbation[] {
  try {
    return parsePerturbations(value);
  } catch (error) {
    throw new HookError(
      'ERR_DETDRIFT_PERTURB',
      `${VARS.perturb} is ${JSON.stringify(value)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

function header(
  settings: HookSettings,
  lineage: string,
  lockfile: TraceHeader['lockfile'],
  perturber: Perturber | null,
  sites: SitePolicy,
): TraceHeader {
  const own = readJsonFile(join(OWN_DIR, 'package.json')) as { version?: string } | null;
  const project = readJsonFile(join(settings.root, 'package.json')) as { name?: string; version?: string } | null;
  return {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    tool: { name: 'detdrift', version: own?.version ?? '0.0.0' },
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    mode: settings.mode,
    seed: settings.seed,
    command: process.argv.map((arg, index) => (index === 0 ? 'node' : projectRelative(arg, settings.root))),
    lineage,
    root: { name: project?.name ?? null, version: project?.version ?? null },
    lockfile,
    apis: API_TABLE.map(({ api, form, family }) => ({ api, form, family })),
    sites,
    holds: settings.hold || settings.mode === 'replay' ? ['bytes'] : [],
    ...(perturber ? { perturb: perturber.describe(process.env) } : {}),
  };
}

/** The sampling, and the calls of this process whose stacks the CLI asked for. */
function sitePolicy(settings: HookSettings, lineage: string): SitePolicy {
  const at = settings.stacksAt
    .filter((ask) => ask.lineage === lineage)
    .map(({ api, ordinal }) => [api, ordinal] as const);
  return at.length > 0 ? { ...settings.sites, at } : settings.sites;
}

function projectRelative(arg: string, root: string): string {
  if (!arg.startsWith(root + sep)) return arg;
  return relative(root, arg).split(sep).join('/');
}

function recordCheckpoint(recorder: Recorder, mask: RootMask, label: string, value: unknown): void {
  if (!recorder.on) return;
  // Without the hook checkpoint() does nothing: whatever the program hands it, it must not throw here.
  let text: string;
  let head: string;
  try {
    text = JSONStringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item)) ?? 'undefined';
  } catch (error) {
    text = `unserializable: ${real.isNativeError(error) ? messageOf(error) : typeof error}`;
  }
  try {
    head = String(label);
  } catch {
    head = '(a label that cannot be printed)';
  }
  recorder.chunk(Api.checkpoint, recorder.site(Api.checkpoint), mask.text(text), mask.text(head));
}
