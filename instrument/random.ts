import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, type Patcher } from './patch.js';
import { numberSource, recordProgramStub, type Recorder, type Sampling } from './recorder.js';

/**
 * `Math.random`: every draw is an event whose value is the double the program got: the real one,
 * control mode's seeded `Math.random` stream, or the recorded one in replay. A `Math.random` the
 * program assigns itself (a seeded harness) is followed, its draws marked as the program's.
 */
export const install = family<Recorder>('random', (patcher, recorder) => patchRandom(patcher, recorder, Math, null));

/** Patches one realm's `Math` (the hook's own, or a `vm` context's, realms.ts), its calls sampled by `sampling`. */
export function patchRandom(patcher: Patcher, recorder: Recorder, math: Math, sampling: Sampling | null): void {
  const stream = recorder.controller?.stream('Math.random');
  const draw = stream && (() => stream.double());
  const random = numberSource(recorder, Api.mathRandom, Tag.f64, draw, undefined, sampling)(math.random);
  patcher.follow(math, 'random', random, recordProgramStub(recorder, Api.mathRandom, Tag.f64, sampling));
}
