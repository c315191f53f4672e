/** `detdrift report`'s options: a saved report or two traces, the form to render and where it goes. */
import { resolve } from 'node:path';
import { REPORT_FORMATS, type ReportFormat } from '../../report/formats.js';
import { comparingConfig } from '../shared/config.js';
import type { IgnoreRules } from '../shared/config-schema.js';
import { DEFAULTS } from '../shared/defaults.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, pathOption, usage } from '../shared/options.js';
import { CliError } from '../shared/errors.js';

export const command: Command<ReportOptions> = {
  usage: 'detdrift report REPORT.json|- [options] [-- CMD]  |  detdrift report A B [options]',
  options: {
    format: { type: 'string', value: 'FORMAT', help: REPORT_FORMATS.join(', '), default: DEFAULTS.reportFormat },
    out: { type: 'string', short: 'o', value: 'FILE', help: 'write it to FILE', default: 'stdout' },
    ...LOG,
  },
  example: 'detdrift report base-trace head-trace --format html -o drift.html',
  normalize: normalizeReport,
  load: () => import('./run.js'),
};

export interface ReportOptions extends CommonOptions {
  /** absolute: a report written by `--json` or `--report json`; null: read it from stdin (`-`), or compare `traces` */
  readonly input: string | null;
  /** absolute: two traces (files or directories) to compare instead of reading a report; null: read one */
  readonly traces: { readonly a: string; readonly b: string } | null;
  /** the config's `ignore`, for comparing `traces` */
  readonly ignore: IgnoreRules;
  readonly format: ReportFormat;
  /** absolute: where the rendering goes; null: stdout */
  readonly out: string | null;
  /**
   * after `--`, with a report: the command its runs ran, which the replay command is made with (a
   * report's own is never shown: it is untrusted); null: no replay command, and the report says why
   */
  readonly command: readonly string[] | null;
}

function normalizeReport(raw: RawInvocation, cwd: string): ReportOptions {
  const paths = raw.positionals;
  if (raw.command !== null && paths.length === 2)
    throw usage('report A B takes no command after "--": it compares two traces, and replays none');
  if (paths.length !== 1 && paths.length !== 2)
    throw usage(
      `report needs one REPORT.json (written by --json), - for stdin, or two traces A and B, got ${paths.length}`,
    );
  const traces = paths.length === 2 ? { a: resolve(cwd, paths[0]!), b: resolve(cwd, paths[1]!) } : null;
  return Object.freeze({
    ...common(raw, cwd),
    input: traces || paths[0] === '-' ? null : resolve(cwd, paths[0]!),
    traces,
    ignore: traces ? comparingConfig(cwd).ignore : { sites: [], packages: [] },
    format: validateFormat(raw.values.format),
    out: pathOption(raw.values.out, cwd),
    command: raw.command?.length ? Object.freeze([...raw.command]) : null,
  });
}

/** `--format`: names the form it got and the forms allowed. */
function validateFormat(value: unknown): ReportFormat {
  if (value === undefined) return DEFAULTS.reportFormat;
  if (REPORT_FORMATS.includes(value as ReportFormat)) return value as ReportFormat;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--format got ${JSON.stringify(value)}; allowed: ${REPORT_FORMATS.join(', ')}`,
  );
}
