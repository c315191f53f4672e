/** `detdrift demo`'s options: the report's form and the log. */
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';
import { JSON_REPORT } from '../shared/report-options.js';

export const command: Command<DemoOptions> = {
  usage: 'detdrift demo [options]',
  options: { ...JSON_REPORT, ...LOG },
  example: 'detdrift demo',
  normalize: normalizeDemo,
  load: () => import('./run.js'),
};

export interface DemoOptions extends CommonOptions {
  readonly json: boolean;
}

function normalizeDemo(raw: RawInvocation, cwd: string): DemoOptions {
  if (raw.positionals.length > 0 || raw.command !== null) throw usage('demo takes no arguments');
  return Object.freeze({ ...common(raw, cwd), json: raw.values.json === true });
}
