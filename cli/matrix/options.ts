/** `detdrift matrix`'s options: the matrix's directory, the reference run, and the table's and page's files. */
import { resolve } from 'node:path';
import { DEFAULTS } from '../shared/defaults.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, pathOption, usage } from '../shared/options.js';
import type { ReportTarget } from '../shared/report-options.js';
import { MATRIX_REPORT_FORMATS, validateReports } from '../shared/report-options.js';

export const command: Command<MatrixOptions> = {
  usage: 'detdrift matrix DIR [options]   (DIR: one trace directory per platform, Node and seed, e.g. linux-20-seed42)',
  options: {
    reference: {
      type: 'string',
      value: 'NAME',
      help: 'the run the others of its seed are compared with',
      default: 'the first Linux run',
    },
    json: { type: 'boolean', help: 'print the matrix as JSON (detdrift.matrix/1) instead of a table' },
    summary: { type: 'string', value: 'FILE', help: 'append the table as Markdown to FILE ($GITHUB_STEP_SUMMARY)' },
    report: {
      type: 'string',
      multiple: true,
      value: 'html[=FILE]',
      help: `also write one page with the platform × seed grid (default file: ${DEFAULTS.reportFiles.html})`,
    },
    ...LOG,
  },
  example: 'detdrift matrix traces --summary "$GITHUB_STEP_SUMMARY"',
  normalize: normalizeMatrix,
  load: () => import('./run.js'),
};

export interface MatrixOptions extends CommonOptions {
  /** absolute: a directory with one trace directory per platform, Node and seed (`linux-20-seed42`) */
  readonly dir: string;
  /** the run the others are compared with (its platform and Node, for each seed); null: the first Linux run */
  readonly reference: string | null;
  readonly json: boolean;
  /** absolute: a file to append the Markdown table to (`$GITHUB_STEP_SUMMARY`); null: none */
  readonly summary: string | null;
  /** `--report html[=FILE]`: the page with the platform × seed grid */
  readonly reports: readonly ReportTarget[];
}

function normalizeMatrix(raw: RawInvocation, cwd: string): MatrixOptions {
  if (raw.command !== null) throw usage('matrix takes no command after "--"');
  if (raw.positionals.length !== 1)
    throw usage(`matrix needs one DIR holding a trace directory per run, got ${raw.positionals.length}`);
  const reference = raw.values.reference;
  return Object.freeze({
    ...common(raw, cwd),
    dir: resolve(cwd, raw.positionals[0]!),
    reference: typeof reference === 'string' && reference !== '' ? reference : null,
    json: raw.values.json === true,
    summary: pathOption(raw.values.summary, cwd),
    reports: validateReports(raw.values.report, cwd, MATRIX_REPORT_FORMATS),
  });
}
