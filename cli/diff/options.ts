/** `detdrift diff`'s options: the two traces, and how to report where they part. */
import { resolve } from 'node:path';
import { comparingConfig } from '../shared/config.js';
import type { IgnoreRules } from '../shared/config-schema.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';
import type { ReportTarget } from '../shared/report-options.js';
import { JSON_REPORT, NO_CONFIRM, REPORT, validateConfirm, validateReports } from '../shared/report-options.js';

export const command: Command<DiffOptions> = {
  usage: 'detdrift diff A B [options]   (A, B: trace files, or directories of them)',
  options: { ...JSON_REPORT, ...NO_CONFIRM, ...REPORT, ...LOG },
  example: 'detdrift diff base-trace head-trace --report html',
  normalize: normalizeDiff,
  load: () => import('./run.js'),
};

export interface DiffOptions extends CommonOptions {
  /** absolute: two trace files, or two directories compared process by process */
  readonly a: string;
  readonly b: string;
  readonly json: boolean;
  /** confirm the cause by replay when run A's command can be re-run here */
  readonly confirm: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
  /** the config's `ignore`: calls left out of the comparison */
  readonly ignore: IgnoreRules;
  readonly configWarnings: readonly string[];
}

function normalizeDiff(raw: RawInvocation, cwd: string): DiffOptions {
  if (raw.command !== null) throw usage('diff takes no command after "--"');
  if (raw.positionals.length !== 2)
    throw usage(`diff needs two traces (files or directories) A and B, got ${raw.positionals.length}`);
  const configured = comparingConfig(cwd);
  return Object.freeze({
    ...common(raw, cwd),
    a: resolve(cwd, raw.positionals[0]!),
    b: resolve(cwd, raw.positionals[1]!),
    json: raw.values.json === true,
    confirm: validateConfirm(raw.values['no-confirm']),
    reports: validateReports(raw.values.report, cwd),
    ignore: configured.ignore,
    configWarnings: configured.configWarnings,
  });
}
