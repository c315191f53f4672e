import timers from 'node:timers';
import timersPromises from 'node:timers/promises';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { ArgAt } from '../tracer/primordials.js';
import { family, wrap, type Native } from './patch.js';
import { WaitingIntervals } from './intervals.js';
import { real } from './real.js';
import type { ResourceWatch } from './context.js';
import type { Recorder } from './recorder.js';

type TimerType = 'Timeout' | 'Immediate';

/** One scheduling call: what its timer records when node creates it and each time it fires. */
interface Scheduled {
  /** the `schedule` or `promise` row */
  readonly api: number;
  readonly fire: number;
  /** the async resource type node gives the timer this call creates */
  readonly type: TimerType;
  /** the scheduling call's site: fire events carry it so a report points at where it was set */
  readonly site: number;
  taken: boolean;
  fires: number;
}

const CALLBACK_FORMS = [
  ['setTimeout', Api.setTimeout, Api.setTimeoutFire, 'Timeout'],
  ['setInterval', Api.setInterval, Api.setIntervalFire, 'Timeout'],
  ['setImmediate', Api.setImmediate, Api.setImmediateFire, 'Immediate'],
] as const;

/**
 * The timers: `setTimeout`, `setInterval`, `setImmediate` (global and `node:timers`, the same
 * functions), and `node:timers/promises` `setTimeout`, `setInterval`, `setImmediate`,
 * `scheduler.wait` and `scheduler.yield` (`util.promisify(setTimeout)` is its promise form), and
 * `AbortSignal.timeout`, whose timer aborts the signal.
 *
 * A call records `schedule` (or `promise`) with the delay node settled on (`1` for `0`, a missing
 * or out-of-range delay; `0` for immediates) when node creates the timer, so a call that throws or
 * is aborted before it schedules records nothing. Each firing records `fire` with the scheduling
 * call's site and the how-manieth firing of that timer it is (intervals and `refresh()` fire again).
 *
 * Callbacks are never wrapped: the program gets node's own `Timeout`, `Immediate` and promise, its
 * callbacks run with their own `this` and arguments, and an error thrown in one has the stack it
 * has without the hook. Fires are seen from the context tracker's async hook instead (context.ts
 * `ResourceWatch`): its `init` tags the timer that the armed scheduling call creates, its `before`
 * runs right before node calls a tagged timer back.
 */
export const install = family<Recorder>('timers', (patcher, recorder) => {
  let armed: Scheduled | null = null;
  const perturber = recorder.perturber?.variant('timers') ? recorder.perturber : null;

  // The context tracker's async hook tells this watch of every resource; uninstall puts back the
  // tracker's empty slot. A throw here reaches the tracker, which stops recording.
  const intervals = new WaitingIntervals<Scheduled>();
  const watch: ResourceWatch<Scheduled> = {
    init(type, resource) {
      const scheduled = armed ?? (type === 'Timeout' ? intervals.take(resource) : undefined);
      if (scheduled === undefined || scheduled === null || scheduled.taken || type !== scheduled.type) return undefined;
      scheduled.taken = true;
      const delay = delayOf(resource);
      recorder.number(scheduled.api, Tag.uint, scheduled.site, delay);
      // Perturb mode (timers): every timer of this delay falls due 1 ms later, so timers due together
      // fire in another order while each delay's own timers keep theirs. Node inserts the timer by
      // `_idleTimeout` right after this init; the program's delay is what the trace keeps.
      if (perturber && type === 'Timeout' && delay > 0)
        (resource as { _idleTimeout: number })._idleTimeout = delay + perturber.timerJitter(delay);
      return scheduled;
    },
    before(scheduled) {
      if (recorder.on) recorder.number(scheduled.fire, Tag.uint, scheduled.site, ++scheduled.fires);
    },
  };
  patcher.value(recorder.contexts, 'watch', watch);

  /** Calls the real scheduler with `scheduled` armed for the timer it creates; nests for valueOf. */
  const armedCall = (scheduled: Scheduled, target: Native, thisArg: unknown, args: unknown[]): unknown => {
    const outer = armed;
    armed = scheduled;
    try {
      return real.apply(target, thisArg, args);
    } finally {
      armed = outer;
    }
  };
  // Inside AbortSignal.timeout, which runs no code of the program's (its delay must be a number):
  // Node 22 and 24 make its timer through the patched `setTimeout`, which is then Node's, not a call.
  let signalling = false;
  const scheduling = (api: number, fire: number, type: TimerType): ProxyHandler<Native> => ({
    apply(target, thisArg, args) {
      if (!recorder.on || signalling) return real.apply(target, thisArg, args);
      const scheduled = { api, fire, type, site: recorder.site(api), taken: false, fires: 0 };
      if (api !== Api.abortSignalTimeout) return armedCall(scheduled, target, thisArg, args);
      signalling = true;
      try {
        return armedCall(scheduled, target, thisArg, args);
      } finally {
        signalling = false;
      }
    },
  });

  const globals = globalThis as unknown as Record<string, Native>;
  const exports = timers as unknown as Record<string, Native>;
  for (const [name, api, fire, type] of CALLBACK_FORMS) {
    const original = globals[name]!;
    const wrapper = wrap(original, scheduling(api, fire, type));
    patcher.value(globalThis, name, wrapper);
    // node:timers exports the very functions the global holds: one wrapper keeps them identical.
    patcher.value(
      timers,
      name,
      exports[name] === original ? wrapper : wrap(exports[name]!, scheduling(api, fire, type)),
    );
  }

  // `setTimeout[util.promisify.custom]` is a getter that reads these exports, so it sees the wrappers.
  patcher.method(timersPromises, 'setTimeout', scheduling(Api.setTimeoutPromise, Api.setTimeoutFire, 'Timeout'));
  patcher.method(
    timersPromises,
    'setImmediate',
    scheduling(Api.setImmediatePromise, Api.setImmediateFire, 'Immediate'),
  );
  const scheduler = (timersPromises.scheduler ? Object.getPrototypeOf(timersPromises.scheduler) : {}) as Record<
    string,
    unknown
  >;
  if (typeof scheduler.wait === 'function' && typeof scheduler.yield === 'function') {
    // they call the module's own setTimeout and setImmediate, not the patched exports
    patcher.method(scheduler, 'wait', scheduling(Api.setTimeoutPromise, Api.setTimeoutFire, 'Timeout'));
    patcher.method(scheduler, 'yield', scheduling(Api.setImmediatePromise, Api.setImmediateFire, 'Immediate'));
  }

  // AbortSignal.timeout arms a Timeout of Node's own: its schedule and fire are recorded as a timer's.
  // A lazy global (on Node 20 a getter, patched at the first read of it or of AbortController; on
  // Node 22 and 24 a lazy value, which a look at it loads).
  let abortSignal = false;
  const patchAbortSignal = () => {
    if (abortSignal) return;
    abortSignal = true;
    const AbortSignal = (globalThis as { AbortSignal?: unknown }).AbortSignal as Record<string, Native> | undefined;
    if (typeof AbortSignal?.timeout === 'function')
      patcher.method(AbortSignal, 'timeout', scheduling(Api.abortSignalTimeout, Api.abortSignalTimeoutFire, 'Timeout'));
  };
  patcher.firstRead(globalThis, 'AbortSignal', patchAbortSignal);
  patcher.firstRead(globalThis, 'AbortController', patchAbortSignal);

  // The promise setInterval is an async generator: its body, which creates the Timeout, first runs
  // inside the first next(). The call takes the site; its Timeout finds it in `intervals` (intervals.ts).
  patcher.method(timersPromises, 'setInterval', {
    apply(target, thisArg, args) {
      const iterator = real.apply(target, thisArg, args) as object;
      if (recorder.on) {
        const site = recorder.site(Api.setIntervalPromise);
        intervals.add(iterator, ArgAt(args, 0), {
          api: Api.setIntervalPromise,
          fire: Api.setIntervalFire,
          type: 'Timeout',
          site,
          taken: false,
          fires: 0,
        });
      }
      return iterator;
    },
  });
});

/**
 * The delay node settled on: its `Timeout` keeps the argument coerced once (a second coercion here
 * could run the program's `valueOf` twice), `1` for anything out of range. Immediates have none.
 */
function delayOf(resource: object): number {
  const delay = (resource as { _idleTimeout?: unknown })._idleTimeout;
  return typeof delay === 'number' && delay > 0 ? delay >>> 0 : 0;
}
