/**
 * DETDRIFT_TEST_FAULT: an internal setting for detdrift's own reliability tests, read once when
 * the hook starts. It injects one failure into one layer so a test can check, in a real process,
 * that the program runs on unchanged, that the failure is reported once on stderr with its code,
 * and that the trace left behind is readable. Comma-separated; unknown entries are ignored, so a
 * stray value never changes what a user's program does beyond what it names.
 *
 *   write:N    the trace file takes N bytes (header included), then writes fail as on a full
 *              disk: a short write, then ENOSPC
 *   record:N   the N-th event handed to the trace writer throws inside the writer
 *   install:N  the N-th install step of the hook throws: start fails midway and is undone
 *   context:N  the N-th async resource the context tracker names throws inside its async hook,
 *              where node would end the process on a throw that got out
 *
 * And one setting, for the tests that check the context tracker's two ways of hearing of promises
 * name contexts alike (context.ts):
 *
 *   promise-hooks-after:N  V8's promise hooks take promises over from the async hook after N
 *              of them (0: from the start), where they can
 */
import type { TraceWriter } from '../tracer/writer.js';
import type { ContextTracker, ResourceWatch } from './context.js';
import { HookError } from '../tracer/errors.js';
import { MathMin } from '../tracer/primordials.js';
import { VARS } from '../tracer/settings.js';
import { real } from './real.js';
import { diskFull, type WriteSync } from './sink.js';

const FAULT_VAR = VARS.testFault;

export interface Faults {
  /** write:N */
  readonly writeLimit: number | null;
  /** record:N, 1-based */
  readonly recordAt: number | null;
  /** install:N, 1-based */
  readonly installAt: number | null;
  /** context:N, 1-based */
  readonly contextAt: number | null;
  /** promise-hooks-after:N */
  readonly promiseHooksAfter: number | null;
}

const NO_FAULTS: Faults = Object.freeze({
  writeLimit: null,
  recordAt: null,
  installAt: null,
  contextAt: null,
  promiseHooksAfter: null,
});

export function readFaults(env: NodeJS.ProcessEnv): Faults {
  const value = env[FAULT_VAR];
  if (!value) return NO_FAULTS;
  const faults: { -readonly [K in keyof Faults]: Faults[K] } = { ...NO_FAULTS };
  for (const entry of value.split(',')) {
    const match = /^(write|record|install|context|promise-hooks-after):(\d+)$/.exec(entry.trim());
    if (!match) continue;
    const count = Number(match[2]);
    if (match[1] === 'write') faults.writeLimit = count;
    else if (match[1] === 'record') faults.recordAt = count;
    else if (match[1] === 'install') faults.installAt = count;
    else if (match[1] === 'context') faults.contextAt = count;
    else faults.promiseHooksAfter = count;
  }
  return Object.freeze(faults);
}

/**
 * write:N: the trace file's `writeSync` (sink.ts), which writes N bytes in all and then fails as
 * on a full disk: a short write, then ENOSPC. Undefined without the fault: the sink's is the real one.
 */
export function limitedWrite(limit: number | null): WriteSync | undefined {
  if (limit === null) return undefined;
  let room = limit;
  return (fd, bytes, offset, length) => {
    if (room <= 0) throw diskFull();
    const count = real.writeSync(fd, bytes, offset, MathMin(length, room));
    room -= count;
    return count;
  };
}

/** record:N: the writer's N-th event throws, as a bug inside the writer would. */
export function injectRecordFault(writer: TraceWriter, at: number | null): void {
  if (at === null) return;
  const number = writer.number;
  let calls = 0;
  writer.number = function (this: TraceWriter, ...args: Parameters<TraceWriter['number']>) {
    if (++calls === at) throw new Error(`injected fault: event ${at} failed inside the writer (${FAULT_VAR})`);
    return real.apply(number, this, args);
  };
}

/** install:N: counts install steps and throws at the N-th, before it patches anything. */
export function installCounter(at: number | null): () => void {
  let steps = 0;
  return () => {
    if (++steps === at)
      throw new HookError('ERR_DETDRIFT_PATCH', `injected fault: install step ${at} failed (${FAULT_VAR})`);
  };
}

/**
 * context:N: the N-th resource the tracker names throws inside its async hook, as a bug there
 * would. Set after the families: it passes everything else on to the watch installed then.
 */
export function injectContextFault(contexts: ContextTracker, at: number | null): void {
  if (at === null) return;
  const watch = contexts.watch;
  let resources = 0;
  const faulty: ResourceWatch = {
    init(type, resource) {
      if (++resources === at)
        throw new Error(`injected fault: async resource ${at} failed inside the context tracker (${FAULT_VAR})`);
      return watch?.init(type, resource);
    },
    before: (watched) => watch?.before(watched),
  };
  contexts.watch = faulty;
}
