import { CONTROLLED, REPLAYED } from '../tracer/format.js';
import { imitate, type Native } from './patch.js';
import { real } from './real.js';
import type { Recorder } from './recorder.js';
import type { Sampling } from './schedule.js';

/**
 * Wraps a source whose value is a number (`Math.random`, `Date.now`, `performance.now`): the
 * value the program gets is the recorded one in replay, `substitute()` in control mode, else what
 * the native returns. Whichever it is, the program gets exactly what is recorded. `flags` says who
 * decided a substituted value: control mode, or (0) nobody, when perturb mode stands in for the
 * real source of another machine. A method written out here rather than a Proxy: these are the
 * calls programs make in hot loops.
 */
export function numberSource(
  recorder: Recorder,
  api: number,
  tag: number,
  substitute?: () => number,
  flags?: number,
  sampling?: Sampling | null,
): (target: Native) => Native {
  return numberWrapper(recorder, api, tag, substitute, flags ?? (substitute ? CONTROLLED : 0), sampling ?? null);
}

/**
 * numberSource's wrapper, made in a function whose parameters have no default: a default puts them
 * all in a scope of their own, and V8 then checks each read of one from the wrapper for the
 * temporal dead zone, after every call it makes (about 80 instructions an event, callgrind).
 */
function numberWrapper(
  recorder: Recorder,
  api: number,
  tag: number,
  substitute: (() => number) | undefined,
  flags: number,
  sampling: Sampling | null,
): (target: Native) => Native {
  return (target) => {
    const source = {
      source(this: unknown): number {
        // a separate call for another realm's: the hook's own realm's stays as small as V8 inlines best
        const site = sampling === null ? recorder.site(api, source) : recorder.siteIn(api, source, sampling);
        const fed = recorder.replay(api, site);
        if (typeof fed === 'number') {
          recorder.number(api, tag | REPLAYED, site, fed);
          return fed;
        }
        const value = substitute ? substitute() : (real.apply(target, this, arguments) as number);
        recorder.number(api, tag | flags, site, value);
        return value;
      },
    }.source;
    return imitate(target, source);
  };
}
