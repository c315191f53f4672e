import { Api } from '../tracer/apis.js';
import { REPLAYED, Tag } from '../tracer/format.js';
import { ArgAt } from '../tracer/primordials.js';
import type { ClockView } from './clock.js';
import { wrap, type Native, type Patcher } from './patch.js';
import { real, SafeWeakMap } from './real.js';
import type { Recorder } from './recorder.js';

// Saved when the hook loads: the clock family replaces Date.now on the same object later.
const dateNow = Date.now;

/**
 * `Intl.DateTimeFormat`'s `format()` and `formatToParts()` without a date format the current time,
 * which V8 reads itself (ECMA-402's `%Date.now%`), past the patched `Date.now`. Such a call is a
 * clock read: the time is read as `Date.now` would give it (the virtual clock in control mode, the
 * recorded value in replay), recorded, and handed to the real method, which formats it as it
 * would have. A call with a date reads no clock and passes through. `format` is a getter that
 * gives each formatter one bound function: each gets one wrapper, so `f.format === f.format` holds.
 */
export function patchIntl(patcher: Patcher, recorder: Recorder, { wallMs, flags }: ClockView): void {
  const clock = recorder.controller;
  const proto = Intl.DateTimeFormat.prototype as unknown as Record<string, Native>;
  /** The time a dateless call formats, recorded as `api`; `use` formats it, and a throw records nothing. */
  const now = (api: number, use: (time: number) => unknown): unknown => {
    const site = recorder.site(api);
    const fed = recorder.replay(api, site);
    const time =
      typeof fed === 'number' ? fed : clock ? wallMs(clock.tick()) : (real.apply(dateNow, Date, []) as number);
    const value = use(time);
    recorder.number(api, Tag.f64 | (typeof fed === 'number' ? REPLAYED : flags), site, time);
    return value;
  };
  const dateless = (api: number): ProxyHandler<Native> => ({
    apply(target, thisArg, args) {
      if (!recorder.on || ArgAt(args, 0) !== undefined) return real.apply(target, thisArg, args);
      return now(api, (time) => real.apply(target, thisArg, [time]));
    },
  });
  const wrappers = new SafeWeakMap<Native, Native>();
  const format = dateless(Api.intlFormat);
  patcher.getter(proto, 'format', {
    apply(get, thisArg, args) {
      const bound = real.apply(get, thisArg, args) as Native;
      let wrapper = wrappers.get(bound);
      if (wrapper === undefined) wrappers.set(bound, (wrapper = wrap(bound, format)));
      return wrapper;
    },
  });
  patcher.method(proto, 'formatToParts', dateless(Api.intlFormatToParts));
}
