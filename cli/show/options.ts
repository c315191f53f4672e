/** `detdrift show`'s options: the trace, and text or JSON lines. */
import { resolve } from 'node:path';
import { DEFAULTS } from '../shared/defaults.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';

export const command: Command<ShowOptions> = {
  usage: 'detdrift show TRACE [options]   (TRACE: a trace file, or a directory of them)',
  options: { json: { type: 'boolean', help: 'one JSON object per line instead of text' }, ...LOG },
  example: 'detdrift show trace --json',
  normalize: normalizeShow,
  load: () => import('./run.js'),
};

export interface ShowOptions extends CommonOptions {
  /** absolute: one trace file, or a directory of them */
  readonly trace: string;
  readonly json: boolean;
}

function normalizeShow(raw: RawInvocation, cwd: string): ShowOptions {
  if (raw.command !== null) throw usage('show takes no command after "--"');
  if (raw.positionals.length !== 1) {
    throw usage(`show needs exactly one TRACE (a trace file or a directory of them), got ${raw.positionals.length}`);
  }
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    json: raw.values.json === true ? true : DEFAULTS.json,
  });
}
