import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, wrap } from './patch.js';
import { real } from './real.js';
import { recordReturn, type Recorder } from './recorder.js';

/**
 * The clocks: `Date` (constructed without arguments, called as a function, `Date.now`),
 * `performance.now` and `timeOrigin` (on `Performance.prototype`, which covers `perf_hooks`),
 * `process.hrtime`, `process.hrtime.bigint` and `process.uptime`.
 */
export const install = family<Recorder>('clock', (patcher, recorder) => {
  const RealDate = real.Date;
  // One Proxy serves as constructor and function; subclasses reach `construct` with their newTarget.
  const DateWrapper = wrap(RealDate, {
    apply(target, thisArg, args) {
      const value = real.apply(target, thisArg, args) as string;
      if (recorder.on) recorder.string(Api.dateCall, recorder.site(Api.dateCall), value);
      return value;
    },
    construct(target, args, newTarget) {
      const date = real.construct(target, args, newTarget === DateWrapper ? target : newTarget) as Date;
      if (args.length === 0 && recorder.on) {
        const time = real.apply(real.dateGetTime, date, []) as number;
        recorder.number(Api.dateConstruct, Tag.f64, recorder.site(Api.dateConstruct), time);
      }
      return date;
    },
  });
  patcher.method(RealDate, 'now', recordReturn(recorder, Api.dateNow, Tag.f64));
  patcher.value(globalThis, 'Date', DateWrapper);
  patcher.value(RealDate.prototype, 'constructor', DateWrapper);

  const performancePrototype = Object.getPrototypeOf(performance) as object;
  patcher.method(performancePrototype, 'now', recordReturn(recorder, Api.performanceNow, Tag.f64));
  patcher.getter(performancePrototype, 'timeOrigin', recordReturn(recorder, Api.performanceTimeOrigin, Tag.f64));

  patcher.method(real.hrtime, 'bigint', {
    apply(target, thisArg, args) {
      const value = real.apply(target, thisArg, args) as bigint;
      if (recorder.on) recorder.bigint(Api.hrtimeBigint, recorder.site(Api.hrtimeBigint), value);
      return value;
    },
  });
  patcher.method(process, 'hrtime', {
    apply(target, thisArg, args) {
      const value = real.apply(target, thisArg, args) as [number, number];
      if (recorder.on) recorder.number(Api.hrtime, Tag.hrtime, recorder.site(Api.hrtime), value[0] * 1e9 + value[1]);
      return value;
    },
  });
  patcher.method(process, 'uptime', recordReturn(recorder, Api.uptime, Tag.f64));
});
