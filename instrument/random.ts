import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family } from './patch.js';
import { recordReturn, type Recorder } from './recorder.js';

/** `Math.random`: every draw is an event whose value is the double the program got. */
export const install = family<Recorder>('random', (patcher, recorder) => {
  patcher.method(Math, 'random', recordReturn(recorder, Api.mathRandom, Tag.f64));
});
