import { family } from './patch.js';
import type { Recorder } from './recorder.js';

/** TODO(#2): the fs family. */
export const install = family<Recorder>('fs', () => {});
