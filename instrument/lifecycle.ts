import { family, type Native } from './patch.js';
import { dataValue, real } from './real.js';
import type { Recorder } from './recorder.js';
import { saveRunningWorkers } from './workers.js';
import { ArgAt } from '../tracer/primordials.js';

/** EventEmitter.prototype, where `process.emit` comes from. */
const emitter = Object.getPrototypeOf(Object.getPrototypeOf(process)) as Record<string, Native>;

/**
 * Ends the trace however the process ends on its own: at `exit` (process.exit, the natural end,
 * and an uncaught exception or unhandled rejection, which Node ends through `exit` with code 1),
 * and flushes it at an uncaught exception (the monitor event). Node emits both through
 * `process.emit`, for `process.exit()` and for the natural end alike, and marks a real exit with
 * `process._exiting`: the hook wraps `emit` where process inherits it from, and adds no listener
 * and no property to `process` a program could count or see. The trace ends before the program's
 * `exit` listeners run, as a first listener would: one that calls `process.exit()` again ends the
 * process at once. Their calls are recorded after the end, one write each. Once they have run,
 * Node stops this thread's workers with no word to JavaScript; they are stopped first here, and
 * their traces written (workers.ts), not before: a listener may still need one (a logger's worker).
 *
 * The hook listens to no signal: any JS listener, hidden or not, keeps a signal from killing a
 * program busy in synchronous code until it yields. A signal the program does not handle kills it
 * as without the hook, and like a SIGKILL, abort or fatal error leaves the chunks written so far:
 * a readable, incomplete prefix, without the events of the chunk still being built. A program
 * that handles the signal and exits ends the trace through `exit`. A child that talks to its
 * parent over IPC (a test runner's pool worker) is ended by its parent with a signal as often as
 * not, right after its last message: its trace is written up to each message it sends, first.
 */
export const install = family<Recorder>('lifecycle', (patcher, recorder) => {
  // an accessor on Node 20 to 24, read through Node's own getter
  const getExiting = real.getOwnPropertyDescriptor(process, '_exiting')?.get;
  const exiting = () => (getExiting ? real.apply(getExiting, process, []) : dataValue(process, '_exiting')) === true;
  // Node exits with process.exitCode as the listeners leave it: late end records follow it.
  const exitCode = () => process.exitCode;
  const handler: ProxyHandler<Native> = {
    apply(target, thisArg, args) {
      if (thisArg !== process) return real.apply(target, thisArg, args);
      const event = ArgAt(args, 0);
      if (event === 'uncaughtExceptionMonitor') recorder.flush();
      if (event !== 'exit' || !exiting()) return real.apply(target, thisArg, args);
      const code = ArgAt(args, 1);
      recorder.finish(typeof code === 'number' ? code : 0, exitCode);
      try {
        return real.apply(target, thisArg, args);
      } finally {
        saveRunningWorkers();
      }
    },
  };
  // A preload that put an `emit` of its own on process (Vitest's vm pools filter warnings so) calls
  // the one it found when it did: that is the one Node's exit goes through.
  if (real.getOwnPropertyDescriptor(process, 'emit')) patcher.method(process, 'emit', handler);
  else patcher.method(emitter, 'emit', handler);
  // process.exit() ends the process here, once `exit` was emitted: also from an exit listener, after
  // the trace ended with the code Node emitted, and after a program's own `emit` that drops `exit`.
  if (typeof dataValue(process, 'reallyExit') === 'function') {
    patcher.method(process, 'reallyExit', {
      apply(target, thisArg, args) {
        const code = ArgAt(args, 0);
        if (thisArg === process) recorder.exiting(typeof code === 'number' ? code : 0);
        return real.apply(target, thisArg, args);
      },
    });
  }
  // Node puts `send` on process itself when there is an IPC channel, before any preload runs.
  if (typeof dataValue(process, 'send') === 'function') {
    patcher.method(process, 'send', {
      apply(target, thisArg, args) {
        if (thisArg === process) recorder.flush();
        return real.apply(target, thisArg, args);
      },
    });
  }
});
