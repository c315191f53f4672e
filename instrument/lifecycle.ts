import { family, type Handle, type Native, type Patcher } from './patch.js';
import { calledByNode, dataValue, real } from './real.js';
import type { Recorder } from './recorder.js';
import { saveRunningWorkers } from './workers.js';
import { ArgAt, ArrayFilter, ArrayIncludes } from '../tracer/primordials.js';

interface Listener {
  readonly event: string;
  readonly listener: Native;
}

const emitter = Object.getPrototypeOf(Object.getPrototypeOf(process)) as Record<string, Native>;
const rawListeners = emitter.rawListeners!;

/**
 * Ends the trace however the process ends on its own: on `exit` (process.exit, the natural end,
 * and an uncaught exception or unhandled rejection, which Node ends through `exit` with code 1),
 * and flushes it on the uncaught exception itself (through the monitor event, which changes
 * nothing). The hook listens to no signal: any JS listener, hidden or not, keeps a signal from
 * killing a program busy in synchronous code until it yields, which is not what the program
 * would do without the hook. A signal the program does not handle therefore kills it exactly as
 * without the hook, and like a SIGKILL, abort or fatal error leaves the chunks written so far: a
 * readable, incomplete prefix, without the events of the chunk still being built. A program that
 * handles the signal and exits ends the trace through `exit`. Workers still running when the
 * thread ends are stopped, and their traces written, first (workers.ts): Node would stop them
 * next without a word to JavaScript.
 */
export function install(recorder: Recorder): Handle {
  const ours: Listener[] = [];
  const handle = patch({ recorder, ours });
  for (const { event, listener } of ours) real.apply(real.emitterOn, process, [event, listener]);
  return {
    uninstall() {
      handle.uninstall();
      for (let i = 0; i < ours.length; i++) real.apply(real.emitterRemove, process, [ours[i]!.event, ours[i]!.listener]);
    },
  };
}

const patch = family<{ recorder: Recorder; ours: Listener[] }>('lifecycle', (patcher, { recorder, ours }) => {
  const isOurs = (listener: unknown) => {
    for (let i = 0; i < ours.length; i++) if (ours[i]!.listener === listener) return true;
    return false;
  };
  // Node exits with process.exitCode as the listeners after ours leave it: late end records follow it.
  const exitCode = () => process.exitCode;
  ours.push({ event: 'exit', listener: (code: unknown) => recorder.finish(typeof code === 'number' ? code : 0, exitCode) });
  ours.push({ event: 'uncaughtExceptionMonitor', listener: () => recorder.flush() });
  hideListeners(patcher, isOurs);
  keepListening(patcher, ours);
  saveWorkersLast(patcher);
});

/**
 * Once every `exit` listener has run, Node stops this thread's workers with no word to
 * JavaScript; they are stopped first here, and their traces written (workers.ts). Not from a
 * listener of ours: one of the program's may still need them (a logger's worker, flushed on exit).
 * Node emits `exit` through `process.emit`, for `process.exit()` and for the natural end alike,
 * and marks a real exit with `process._exiting`.
 */
function saveWorkersLast(patcher: Patcher): void {
  // an accessor on Node 20 to 24, read through Node's own getter
  const getExiting = real.getOwnPropertyDescriptor(process, '_exiting')?.get;
  const exiting = () => (getExiting ? real.apply(getExiting, process, []) : dataValue(process, '_exiting')) === true;
  patcher.shadow(process, 'emit', emitter.emit!, {
    apply(target, thisArg, args) {
      try {
        return real.apply(target, thisArg, args);
      } finally {
        if (thisArg === process && ArgAt(args, 0) === 'exit' && exiting()) saveRunningWorkers();
      }
    },
  });
}

/**
 * Shadows the EventEmitter methods that list listeners with ones that leave ours out, on `process`
 * only and for the program only.
 */
function hideListeners(patcher: Patcher, isOurs: (listener: unknown) => boolean): void {
  const visible = (event: unknown) => programListeners(event, isOurs);
  const filtered = (method: string, map: (args: unknown[], all: unknown) => unknown) => {
    const handler: ProxyHandler<Native> = {
      apply(target, thisArg, args) {
        const all = real.apply(target, thisArg, args);
        // Node's own bookkeeping (closing a signal's handle when its last listener goes) needs the truth.
        return thisArg === process && !calledByNode(handler.apply!) ? map(args, all) : all;
      },
    };
    patcher.shadow(process, method, emitter[method]!, handler);
  };
  filtered('listeners', (_args, all) => ArrayFilter(all as unknown[], (listener) => !isOurs(listener)));
  filtered('rawListeners', (_args, all) => ArrayFilter(all as unknown[], (listener) => !isOurs(unwrapOnce(listener))));
  // With a listener to count, the program can only name its own: Node's count is already right.
  filtered('listenerCount', (args, all) => (ArgAt(args, 1) != null ? all : visible(ArgAt(args, 0)).length));
  filtered('eventNames', (_args, all) => ArrayFilter(all as PropertyKey[], (name) => visible(name).length > 0));
}

/**
 * `process.removeAllListeners('exit')` (or with no event) would take ours too and lose the end of
 * the trace; ours are put back first in line, where install put them.
 */
function keepListening(patcher: Patcher, ours: readonly Listener[]): void {
  patcher.shadow(process, 'removeAllListeners', emitter.removeAllListeners!, {
    apply(target, thisArg, args) {
      const result = real.apply(target, thisArg, args);
      if (thisArg !== process) return result;
      for (let i = 0; i < ours.length; i++) {
        const { event, listener } = ours[i]!;
        if (args.length > 0 && args[0] !== event) continue;
        const present = real.apply(rawListeners, process, [event]) as unknown[];
        if (!ArrayIncludes(present, listener)) real.apply(real.emitterPrepend, process, [event, listener]);
      }
      return result;
    },
  });
}

/** The listeners of `event` that are the program's (`once` wrappers count as what they wrap). */
function programListeners(event: unknown, isOurs: (listener: unknown) => boolean): unknown[] {
  return ArrayFilter(real.apply(rawListeners, process, [event]) as unknown[], (listener) => !isOurs(unwrapOnce(listener)));
}

function unwrapOnce(listener: unknown): unknown {
  return (listener as { listener?: unknown }).listener ?? listener;
}
