/** `detdrift replay`'s options: the recorded run, where the replayed run's traces go, and the command after `--`. */
import { resolve } from 'node:path';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, pathOption, usage } from '../shared/options.js';
import { JSON_REPORT } from '../shared/report-options.js';

export const command: Command<ReplayOptions> = {
  usage: 'detdrift replay TRACE [options] -- CMD...',
  options: {
    out: {
      type: 'string',
      short: 'o',
      value: 'DIR',
      help: "where the replayed run's traces go",
      default: 'a temporary directory',
    },
    ...JSON_REPORT,
    ...LOG,
  },
  example: 'detdrift replay trace -- node test/sim.js',
  normalize: normalizeReplay,
  load: () => import('./run.js'),
};

export interface ReplayOptions extends CommonOptions {
  /** absolute: the recorded run's trace directory */
  readonly trace: string;
  /** absolute: where the replayed run's traces go; null: a temporary directory */
  readonly out: string | null;
  readonly command: readonly string[];
  readonly json: boolean;
}

function normalizeReplay(raw: RawInvocation, cwd: string): ReplayOptions {
  if (raw.positionals.length !== 1)
    throw usage(`replay needs one TRACE directory before "--", got ${raw.positionals.length}`);
  if (raw.command === null || raw.command.length === 0)
    throw usage('replay needs the command to run after "--", e.g. detdrift replay trace -- node app.js');
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    out: pathOption(raw.values.out, cwd),
    command: Object.freeze([...raw.command]),
    json: raw.values.json === true,
  });
}
