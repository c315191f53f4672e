import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family } from './patch.js';
import { numberSource, recordProgramStub, type Recorder } from './recorder.js';

/**
 * `Math.random`: every draw is an event whose value is the double the program got: the real one,
 * control mode's seeded `Math.random` stream, or the recorded one in replay. A `Math.random` the
 * program assigns itself (a seeded harness) is followed, its draws marked as the program's.
 */
export const install = family<Recorder>('random', (patcher, recorder) => {
  const stream = recorder.controller?.stream('Math.random');
  const random = numberSource(recorder, Api.mathRandom, Tag.f64, stream && (() => stream.double()))(Math.random);
  patcher.follow(Math, 'random', random, recordProgramStub(recorder, Api.mathRandom, Tag.f64));
});
