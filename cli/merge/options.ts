/** `detdrift merge`'s options: the shards' reports to combine, and how to print and write the verdict. */
import { resolve } from 'node:path';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';
import type { ReportTarget } from '../shared/report-options.js';
import { JSON_REPORT, REPORT, validateReports } from '../shared/report-options.js';

export const command: Command<MergeOptions> = {
  usage:
    'detdrift merge REPORT.json...|DIR... [options] [-- CMD]   (DIR: its *.json files at any depth, as a CI job downloads them; CMD: the command the shards ran, for the replay command)',
  options: { ...JSON_REPORT, ...REPORT, ...LOG },
  example: 'detdrift merge shards --report github --report summary -- node test/sim.js',
  normalize: normalizeMerge,
  load: () => import('./run.js'),
};

export interface MergeOptions extends CommonOptions {
  /** absolute: report files (`--report json`), and directories whose `*.json` files, at any depth, are reports */
  readonly inputs: readonly string[];
  readonly json: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
  /**
   * after `--`: the command the shards ran, which the replay command is made with (the reports' own
   * is never shown: they are untrusted); null: no replay command, and the report says why
   */
  readonly command: readonly string[] | null;
}

function normalizeMerge(raw: RawInvocation, cwd: string): MergeOptions {
  if (raw.positionals.length === 0)
    throw usage(
      "merge needs the shards' reports: REPORT.json files (written by --report json), or directories of them",
    );
  return Object.freeze({
    ...common(raw, cwd),
    inputs: Object.freeze(raw.positionals.map((path) => resolve(cwd, path))),
    json: raw.values.json === true,
    reports: validateReports(raw.values.report, cwd),
    command: raw.command?.length ? Object.freeze([...raw.command]) : null,
  });
}
