import { Api } from '../tracer/apis.js';
import { CONTROLLED, REPLAYED, Tag } from '../tracer/format.js';
import { ArrayIsArray, BigInt, MathFloor } from '../tracer/primordials.js';
import { Controller } from './control.js';
import { family, imitate, type Patcher } from './patch.js';
import { patchIntl } from './intl.js';
import { builtin, real } from './real.js';
import type PerfHooks from 'node:perf_hooks';
import { numberSource } from './number-source.js';
import type { Recorder } from './recorder.js';
import type { Sampling } from './schedule.js';

/**
 * The clocks: `Date` (constructed without arguments, called as a function, `Date.now`),
 * `process.hrtime`, `process.hrtime.bigint`, `process.uptime` and a dateless `Intl.DateTimeFormat`
 * format (intl.ts); `performance.now` and `timeOrigin` are installPerformance's. In control mode
 * every one reads the virtual clock (control.ts), and in replay the recorded value. Each stays the
 * kind of property it was: a `Date.now` the program assigns itself is its own, and goes unrecorded.
 */
export const install = family<Recorder>('clock', (patcher, recorder) => {
  const clock = recorder.controller;
  const view = clockOf(recorder);
  const { wallMs, monoNs, flags } = view;
  patchDate(patcher, recorder, globalThis, null, { wallMs, flags });
  patchIntl(patcher, recorder, view);
  patcher.method(
    process,
    'uptime',
    numberSource(recorder, Api.uptime, Tag.f64, clock ? () => monoNs(clock.tick()) / 1e9 : undefined, flags),
  );

  patcher.method(real.hrtime, 'bigint', (target) => {
    const bigint = {
      bigint(this: unknown): bigint {
        const site = recorder.site(Api.hrtimeBigint, bigint);
        const fed = recorder.replay(Api.hrtimeBigint, site);
        const value =
          typeof fed === 'bigint'
            ? fed
            : clock
              ? BigInt(monoNs(clock.tick()))
              : (real.apply(target, this, arguments) as bigint);
        recorder.bigint(Api.hrtimeBigint, site, value, typeof fed === 'bigint' ? REPLAYED : flags);
        return value;
      },
    }.bigint;
    return imitate(target, bigint);
  });
  // After bigint: the wrapper copies hrtime's own properties, bigint's wrapper among them.
  patcher.method(process, 'hrtime', (target) => {
    const hrtime = {
      hrtime(this: unknown): [number, number] {
        // The real call validates `previous` and throws what it throws, in every mode.
        let value = real.apply(target, this, arguments) as [number, number];
        const site = recorder.site(Api.hrtime, hrtime);
        const fed = recorder.replay(Api.hrtime, site);
        if (ArrayIsArray(fed)) value = [fed[0] as number, fed[1] as number];
        else if (clock) value = virtualHrtime(monoNs(clock.tick()), arguments[0] as [number, number] | undefined);
        recorder.number(
          Api.hrtime,
          Tag.hrtime | (ArrayIsArray(fed) ? REPLAYED : flags),
          site,
          value[0] * 1e9 + value[1],
        );
        return value;
      },
    }.hrtime;
    return imitate(target, hrtime);
  });
});

/**
 * `performance.now` and `timeOrigin`, on `Performance.prototype`: apart from the other clocks, for
 * `globalThis.performance` and perf_hooks load a dozen modules that a program may never need
 * (deferred.ts).
 */
export const installPerformance = family<Recorder>('performance', (patcher, recorder) => {
  const clock = recorder.controller;
  const { wallMs, monoNs, flags } = clockOf(recorder);
  const performancePrototype = real.getPrototypeOf(builtin<typeof PerfHooks>('node:perf_hooks').performance) as object;
  patcher.method(
    performancePrototype,
    'now',
    numberSource(recorder, Api.performanceNow, Tag.f64, clock ? () => monoNs(clock.tick()) / 1e6 : undefined, flags),
  );
  patcher.getter(
    performancePrototype,
    'timeOrigin',
    numberSource(recorder, Api.performanceTimeOrigin, Tag.f64, clock ? () => wallMs(0) : undefined, flags),
  );
});

/** What the clocks show of the virtual clock's nanoseconds, and the tag flags of what they show. */
export interface ClockView {
  readonly wallMs: (ns: number) => number;
  readonly monoNs: (ns: number) => number;
  readonly flags: number;
}

export function clockOf(recorder: Recorder): ClockView {
  // Perturb mode (clock dimension) shows the virtual clock as another machine's: shifted or coarser.
  // Those values stand for a real clock's, so they are recorded as uncontrolled, as a real clock's are.
  const perturber = recorder.perturber?.clock ? recorder.perturber : null;
  return {
    wallMs: (ns) => (perturber ? perturber.wall(Controller.wallMs(ns)) : Controller.wallMs(ns)),
    monoNs: (ns) => (perturber ? perturber.monotonic(ns) : ns),
    flags: recorder.controller && !perturber ? CONTROLLED : 0,
  };
}

/**
 * Patches one realm's `Date` (the hook's own, or a `vm` context's, realms.ts): `Date.now`, `new
 * Date()` and `Date()`, its calls sampled by `sampling`.
 */
export function patchDate(
  patcher: Patcher,
  recorder: Recorder,
  global: typeof globalThis,
  sampling: Sampling | null,
  { wallMs, flags }: Pick<ClockView, 'wallMs' | 'flags'>,
): void {
  const clock = recorder.controller;
  const RealDate = global.Date;
  const siteOf = (api: number) =>
    sampling === null ? recorder.site(api, DateWrapper) : recorder.siteIn(api, DateWrapper, sampling);
  patcher.method(
    RealDate,
    'now',
    numberSource(recorder, Api.dateNow, Tag.f64, clock ? () => wallMs(clock.tick()) : undefined, flags, sampling),
  );
  // A function that looks like Date (patch.ts imitate) rather than a Proxy, which put every
  // `Date.now` lookup through its [[Get]]. Made after `now`: it copies the wrapped `now`.
  const DateWrapper: DateConstructor = imitate(
    RealDate,
    {
      Date(this: unknown): string {
        const site = siteOf(Api.dateCall);
        const fed = recorder.replay(Api.dateCall, site);
        const value =
          typeof fed === 'string'
            ? fed
            : clock
              ? (real.apply(real.dateToString, new RealDate(wallMs(clock.tick())), []) as string)
              : (real.apply(RealDate, this, arguments) as string);
        recorder.string(Api.dateCall, site, value, typeof fed === 'string' ? REPLAYED : flags);
        return value;
      },
    }.Date as unknown as DateConstructor,
    (args, subclass): Date => {
      if (args.length > 0) return real.construct(RealDate, args, subclass) as Date; // a given date reads no clock
      const site = siteOf(Api.dateConstruct);
      const fed = recorder.replay(Api.dateConstruct, site);
      const time = typeof fed === 'number' ? fed : clock ? wallMs(clock.tick()) : null;
      const date = real.construct(RealDate, time === null ? [] : [time], subclass) as Date;
      const value = time ?? (real.apply(real.dateGetTime, date, []) as number);
      recorder.number(Api.dateConstruct, Tag.f64 | (typeof fed === 'number' ? REPLAYED : flags), site, value);
      return date;
    },
  );
  patcher.value(global, 'Date', DateWrapper);
  patcher.value(RealDate.prototype, 'constructor', DateWrapper);
}

function virtualHrtime(nanoseconds: number, previous: [number, number] | undefined): [number, number] {
  const elapsed = previous ? nanoseconds - (previous[0] * 1e9 + previous[1]) : nanoseconds;
  return [MathFloor(elapsed / 1e9), elapsed % 1e9];
}
