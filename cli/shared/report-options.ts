/**
 * The options of the commands that report a comparison (check, diff, bump, merge; matrix takes
 * html): `--json`, `--no-confirm` and `--report FORMAT[=FILE]`, from their help to the targets
 * cli/shared/output.ts writes.
 */
import { resolve } from 'node:path';
import type { ReportFormat } from '../../report/formats.js';
import { DEFAULTS } from './defaults.js';
import { CliError } from './errors.js';
import type { OptionSpecs } from './options.js';

/** The forms `check`, `diff` and `bump` write besides their own report (`--report`). */
export const EXTRA_REPORT_FORMATS: readonly ReportFormat[] = ['github', 'summary', 'sarif', 'comment', 'json', 'html'];
/** The forms `matrix` writes besides its own table (`--report`): the page with its platform × seed grid. */
export const MATRIX_REPORT_FORMATS: readonly ReportFormat[] = ['html'];

/** One `--report FORMAT[=FILE]` of check and diff: a form of the report written besides the command's own. */
export interface ReportTarget {
  readonly format: ReportFormat;
  /**
   * absolute: the file it goes to; null for github without a file, which goes to stdout after the report
   * (stderr under --json)
   */
  readonly file: string | null;
  /** add to the file instead of replacing it: the job summary, `$GITHUB_STEP_SUMMARY` */
  readonly append: boolean;
}

export const REPORT: OptionSpecs = {
  report: {
    type: 'string',
    multiple: true,
    value: 'FORMAT[=FILE]',
    help: `also write the report as ${EXTRA_REPORT_FORMATS.join(', ')} (repeatable or comma-separated; see detdrift --help)`,
  },
};

export const JSON_REPORT: OptionSpecs = {
  json: { type: 'boolean', help: 'print the report as JSON (detdrift.report/1) instead of text' },
  verbose: { type: 'boolean', help: 'also show where source maps moved each frame from (JSON always has it)' },
};

export const NO_CONFIRM: OptionSpecs = {
  'no-confirm': { type: 'boolean', help: 'do not confirm the cause by replaying the first run with its values pinned' },
};

/** `--no-confirm`: whether to confirm the cause by replay. */
export function validateConfirm(value: unknown): boolean {
  return value === true ? false : DEFAULTS.confirm;
}

/**
 * `--report FORMAT[=FILE]`, repeatable and comma-separated, of `formats`. Without a file: github
 * goes to stdout, summary is appended to $GITHUB_STEP_SUMMARY (an error outside GitHub Actions,
 * where it is not set), and sarif, comment, json and html go to their default files in the
 * working directory.
 */
export function validateReports(
  value: unknown,
  cwd: string,
  formats = EXTRA_REPORT_FORMATS,
  env: NodeJS.ProcessEnv = process.env,
): ReportTarget[] {
  if (value === undefined) return [];
  const specs = (Array.isArray(value) ? value : [value]).flatMap((entry) => String(entry).split(','));
  const allowed = `allowed: ${formats.join(', ')}, each optionally =FILE`;
  return specs.map((spec) => {
    const at = spec.indexOf('=');
    const format = (at < 0 ? spec : spec.slice(0, at)).trim() as ReportFormat;
    const file = at < 0 ? null : spec.slice(at + 1);
    if (!formats.includes(format))
      throw new CliError('ERR_OPTION_VALUE', `--report got ${JSON.stringify(spec)}; ${allowed}`);
    if (file === '')
      throw new CliError(
        'ERR_OPTION_VALUE',
        `--report got ${JSON.stringify(spec)}: the file after "=" is empty; ${allowed}`,
      );
    if (file !== null) return Object.freeze({ format, file: resolve(cwd, file), append: false });
    if (format === 'github') return Object.freeze({ format, file: null, append: false });
    if (format === 'summary') {
      const summary = env.GITHUB_STEP_SUMMARY;
      if (!summary)
        throw new CliError(
          'ERR_OPTION_VALUE',
          `--report got "summary", but $GITHUB_STEP_SUMMARY is not set (it is inside GitHub Actions); allowed here: summary=FILE`,
        );
      return Object.freeze({ format, file: resolve(cwd, summary), append: true });
    }
    return Object.freeze({
      format,
      file: resolve(cwd, DEFAULTS.reportFiles[format as keyof typeof DEFAULTS.reportFiles]),
      append: false,
    });
  });
}
