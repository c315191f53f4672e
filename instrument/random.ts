import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, wrap } from './patch.js';
import { recordProgramStub, recordReturn, recordSubstitute, type Recorder } from './recorder.js';

/**
 * `Math.random`: every draw is an event whose value is the double the program got. In control mode
 * the draws come from the seeded `Math.random` stream. A `Math.random` the program assigns itself
 * (a seeded harness) is followed, its draws marked as the program's.
 */
export const install = family<Recorder>('random', (patcher, recorder) => {
  const stream = recorder.controller?.stream('Math.random');
  const handler = stream
    ? recordSubstitute(recorder, Api.mathRandom, Tag.f64, () => stream.double())
    : recordReturn(recorder, Api.mathRandom, Tag.f64);
  patcher.follow(Math, 'random', wrap(Math.random, handler), recordProgramStub(recorder, Api.mathRandom, Tag.f64));
});
