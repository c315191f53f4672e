import { family } from './patch.js';
import type { Recorder } from './recorder.js';

/** TODO(#2): the crypto family. */
export const install = family<Recorder>('crypto', () => {});
