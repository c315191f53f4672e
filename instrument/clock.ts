import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { Controller, VIRTUAL_EPOCH_MS } from './control.js';
import { family, wrap, type Native } from './patch.js';
import { real } from './real.js';
import { CONTROLLED, recordProgramStub, recordReturn, recordSubstitute, type Recorder } from './recorder.js';

/**
 * The clocks: `Date` (constructed without arguments, called as a function, `Date.now`),
 * `performance.now` and `timeOrigin` (on `Performance.prototype`, which covers `perf_hooks`),
 * `process.hrtime`, `process.hrtime.bigint` and `process.uptime`. In control mode every one reads
 * the virtual clock (control.ts); a `Date.now` the program assigns itself is followed.
 */
export const install = family<Recorder>('clock', (patcher, recorder) => {
  const clock = recorder.controller;
  const RealDate = real.Date;
  // One Proxy serves as constructor and function; subclasses reach `construct` with their newTarget.
  const DateWrapper = wrap(RealDate, {
    apply(target, thisArg, args) {
      const value = clock
        ? (real.apply(real.dateToString, new RealDate(Controller.wallMs(clock.tick())), []) as string)
        : (real.apply(target, thisArg, args) as string);
      if (recorder.on) recorder.string(Api.dateCall, recorder.site(Api.dateCall), value, clock ? CONTROLLED : 0);
      return value;
    },
    construct(target, args, newTarget) {
      const constructWith = args.length === 0 && clock ? [Controller.wallMs(clock.tick())] : args;
      const date = real.construct(target, constructWith, newTarget === DateWrapper ? target : newTarget) as Date;
      if (args.length === 0 && recorder.on) {
        const time = real.apply(real.dateGetTime, date, []) as number;
        recorder.number(Api.dateConstruct, Tag.f64 | (clock ? CONTROLLED : 0), recorder.site(Api.dateConstruct), time);
      }
      return date;
    },
  });
  const now = wrap(RealDate.now, clock
    ? recordSubstitute(recorder, Api.dateNow, Tag.f64, () => Controller.wallMs(clock.tick()))
    : recordReturn(recorder, Api.dateNow, Tag.f64));
  patcher.follow(RealDate, 'now', now, recordProgramStub(recorder, Api.dateNow, Tag.f64));
  patcher.value(globalThis, 'Date', DateWrapper);
  patcher.value(RealDate.prototype, 'constructor', DateWrapper);

  const performancePrototype = Object.getPrototypeOf(performance) as object;
  patcher.method(performancePrototype, 'now', clock
    ? recordSubstitute(recorder, Api.performanceNow, Tag.f64, () => clock.tick() / 1e6)
    : recordReturn(recorder, Api.performanceNow, Tag.f64));
  patcher.getter(performancePrototype, 'timeOrigin', clock
    ? recordSubstitute(recorder, Api.performanceTimeOrigin, Tag.f64, () => VIRTUAL_EPOCH_MS)
    : recordReturn(recorder, Api.performanceTimeOrigin, Tag.f64));
  patcher.method(process, 'uptime', clock
    ? recordSubstitute(recorder, Api.uptime, Tag.f64, () => clock.tick() / 1e9)
    : recordReturn(recorder, Api.uptime, Tag.f64));

  patcher.method(real.hrtime, 'bigint', {
    apply(target, thisArg, args) {
      const value = clock ? BigInt(clock.tick()) : (real.apply(target, thisArg, args) as bigint);
      if (recorder.on) recorder.bigint(Api.hrtimeBigint, recorder.site(Api.hrtimeBigint), value, clock ? CONTROLLED : 0);
      return value;
    },
  });
  patcher.method(process, 'hrtime', {
    apply(target, thisArg, args) {
      // The real call validates `previous` and throws what it throws, in both modes.
      let value = real.apply(target as Native, thisArg, args) as [number, number];
      if (clock) value = virtualHrtime(clock.tick(), args[0] as [number, number] | undefined);
      if (recorder.on) recorder.number(Api.hrtime, Tag.hrtime | (clock ? CONTROLLED : 0), recorder.site(Api.hrtime), value[0] * 1e9 + value[1]);
      return value;
    },
  });
});

function virtualHrtime(nanoseconds: number, previous: [number, number] | undefined): [number, number] {
  const elapsed = previous ? nanoseconds - (previous[0] * 1e9 + previous[1]) : nanoseconds;
  return [Math.floor(elapsed / 1e9), elapsed % 1e9];
}
