import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, type Patcher } from './patch.js';
import { numberSource } from './number-source.js';
import type { Recorder } from './recorder.js';
import type { Sampling } from './schedule.js';

/**
 * `Math.random`: every draw is an event whose value is the double the program got: the real one,
 * control mode's seeded `Math.random` stream, or the recorded one in replay. `Math.random` stays a
 * data property: a function the program assigns in its place (a seeded harness, a fake-timer
 * library) is the program's own, and its calls are not recorded until the original is put back.
 */
export const install = family<Recorder>('random', (patcher, recorder) => patchRandom(patcher, recorder, Math, null));

/** Patches one realm's `Math` (the hook's own, or a `vm` context's, realms.ts), its calls sampled by `sampling`. */
export function patchRandom(patcher: Patcher, recorder: Recorder, math: Math, sampling: Sampling | null): void {
  const stream = recorder.controller?.stream('Math.random');
  const draw = stream && (() => stream.double());
  patcher.method(math, 'random', numberSource(recorder, Api.mathRandom, Tag.f64, draw, undefined, sampling));
}
