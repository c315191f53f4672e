import { constants } from 'node:os';
import { family, type Native, type Patcher } from './patch.js';
import { real } from './real.js';
import type { Recorder } from './recorder.js';

const SIGNALS = process.platform === 'win32' ? (['SIGINT', 'SIGTERM'] as const) : (['SIGINT', 'SIGTERM', 'SIGHUP'] as const);

/**
 * Flushes the trace however the process ends: on `exit` (process.exit and the natural end), on an
 * uncaught exception (through the monitor event, which changes nothing), and on SIGINT, SIGTERM and
 * SIGHUP. A signal listener would change what the signal does, so ours is hidden from the
 * program's view of its listeners, and when no listener of the program's is left, ours re-raises
 * the signal so it ends the process as it would have without the hook.
 */
export const install = family<Recorder>('lifecycle', (patcher, recorder) => {
  const ours = new WeakSet<Native>();
  const listen = (event: string, listener: Native) => {
    ours.add(listener);
    process.on(event, listener);
  };

  listen('exit', (code: number) => recorder.finish(code));
  listen('uncaughtExceptionMonitor', () => recorder.flush());
  for (const signal of SIGNALS) {
    const onSignal = () => {
      if (process.listenerCount(signal) > 0) return recorder.flush(); // the program handles it
      recorder.finish(128 + (constants.signals[signal] ?? 0));
      process.removeListener(signal, onSignal);
      process.kill(real.pid, signal);
    };
    listen(signal, onSignal);
  }
  hideListeners(patcher, (listener) => ours.has(listener as Native));
});

/** Shadows the EventEmitter methods that list listeners with ones that leave ours out, on `process` only. */
function hideListeners(patcher: Patcher, isOurs: (listener: unknown) => boolean): void {
  const emitter = Object.getPrototypeOf(Object.getPrototypeOf(process)) as Record<string, Native>;
  const visible = (event: unknown) =>
    (real.apply(emitter.rawListeners!, process, [event]) as unknown[]).filter((listener) => !isOurs(unwrapOnce(listener)));
  const filtered = (method: string, map: (event: unknown, all: unknown) => unknown) =>
    patcher.shadow(process, method, emitter[method]!, {
      apply(target, thisArg, args) {
        const all = real.apply(target, thisArg, args);
        return thisArg === process ? map(args[0], all) : all;
      },
    });
  filtered('listeners', (_event, all) => (all as unknown[]).filter((listener) => !isOurs(listener)));
  filtered('rawListeners', (_event, all) => (all as unknown[]).filter((listener) => !isOurs(unwrapOnce(listener))));
  filtered('listenerCount', (event) => visible(event).length);
  filtered('eventNames', (_event, all) => (all as PropertyKey[]).filter((name) => visible(name).length > 0));
}

function unwrapOnce(listener: unknown): unknown {
  return (listener as { listener?: unknown }).listener ?? listener;
}
