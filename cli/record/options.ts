/** `detdrift record`'s options: where the traces go, the seed and mode the program gets, and the command after `--`. */
import { resolve } from 'node:path';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';
import type { Recording } from '../shared/recording.js';
import { MODE, SEED, validateMode, validateSeed } from '../shared/run-options.js';

export const command: Command<RecordOptions> = {
  usage: 'detdrift record --out DIR [options] -- CMD...',
  options: {
    out: {
      type: 'string',
      short: 'o',
      value: 'DIR',
      help: 'the directory that receives the traces (required; its old traces are removed)',
    },
    ...SEED,
    ...MODE,
    ...LOG,
  },
  example: 'detdrift record --out trace --seed 42 -- node test/sim.js',
  normalize: normalizeRecord,
  load: () => import('./run.js'),
};

/** `out` is cleared of its old traces first. */
export interface RecordOptions extends CommonOptions, Recording {}

function normalizeRecord(raw: RawInvocation, cwd: string): RecordOptions {
  if (raw.positionals.length > 0) {
    throw usage(
      `record takes no arguments before "--", got ${JSON.stringify(raw.positionals)}: put the command after "--"`,
    );
  }
  if (raw.command === null || raw.command.length === 0) {
    throw usage('record needs the command to trace after "--", e.g. detdrift record --out trace -- node app.js');
  }
  const out = raw.values.out;
  if (typeof out !== 'string' || out === '')
    throw usage('record needs --out DIR: the directory that receives the traces');
  return Object.freeze({
    ...common(raw, cwd),
    out: resolve(cwd, out),
    mode: validateMode(raw.values.mode),
    seed: validateSeed(raw.values.seed),
    command: Object.freeze([...raw.command]),
  });
}
