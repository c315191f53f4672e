/**
 * `detdrift matrix DIR`: the traces a CI matrix uploaded, one directory per platform × Node × seed,
 * each compared with the reference run of its seed (by default the first Linux one) through the
 * platforms/ views, which leave out what differs between machines anyway (paths, line endings,
 * host name, CPU count, stat times). Per run: agree, or the first divergence and its cause, and a
 * label: a divergence only between platforms, while each platform's runs of the seed agree, is
 * platform-specific. Text, or `--json` (schema `detdrift.matrix/1`); `--summary FILE` appends a
 * Markdown table (the job summary); `--report html[=FILE]` writes the grid as a page, with the
 * first diverging run's whole report. Exit status 1 when any run diverges.
 */
import { statSync } from 'node:fs';
import { compare, type Comparison } from '../../diffing/compare.js';
import { buildReport } from '../../diffing/findings/build.js';
import { labelOf, type MatrixRun, planMatrix, readMatrix, referenceOf } from '../../platforms/matrix.js';
import { relayUntrusted } from '../../report/github.js';
import { type MatrixDetail, renderMatrixHtml } from '../../report/matrix-html.js';
import { renderMatrixMarkdown, renderMatrixText } from '../../report/matrix.js';
import type { MatrixReport, MatrixRow } from '../../report/types.js';
import { inertData, jsonText } from '../../report/untrusted.js';
import { DEFAULTS } from '../shared/defaults.js';
import { CliError, verdictStatus } from '../shared/errors.js';
import type { CommandContext } from '../shared/options.js';
import { writeReportFile } from '../shared/output.js';
import { findRoot } from '../shared/project.js';
import type { MatrixOptions } from './options.js';

export async function run(options: MatrixOptions, { logger }: CommandContext): Promise<number> {
  if (!statSync(options.dir, { throwIfNoEntry: false })?.isDirectory())
    throw new CliError('ERR_NO_TRACES', `no matrix directory at ${options.dir}`);
  const runs = readMatrix(options.dir);
  if (runs.length === 0) {
    throw new CliError(
      'ERR_NO_TRACES',
      `${options.dir} holds no run: expected one directory of *.ddtrace files per platform, Node and seed (e.g. linux-20-seed42)`,
    );
  }
  const reference = referenceOf(runs, options.reference);
  if (reference === null) {
    throw new CliError(
      'ERR_OPTION_VALUE',
      `--reference got ${JSON.stringify(options.reference)}; the runs are: ${runs.map((entry) => entry.name).join(', ')}`,
    );
  }
  const root = findRoot(options.cwd);
  const comparisons = new Map<string, Comparison>();
  const comparisonOf = (a: MatrixRun, b: MatrixRun): Comparison => {
    const key = `${a.name}\u0000${b.name}`;
    let comparison = comparisons.get(key);
    if (comparison === undefined) {
      // One commit on every runner: a lockfile digest that differs is a checkout's line endings, not a bump.
      comparison = compare(a.dir, b.dir, { normalize: true, codeChanged: false });
      comparisons.set(key, comparison);
      logger.debug({ a: a.name, b: b.name, verdict: comparison.verdict }, 'matrix pair compared');
    }
    return comparison;
  };
  const agrees = (a: MatrixRun, b: MatrixRun) => comparisonOf(a, b).verdict === 'agree';
  const plan = planMatrix(runs, reference);
  let detail: MatrixDetail | null = null;
  const rows: MatrixRow[] = plan.pairs.map(({ run: entry, reference: against }) => {
    const comparison = comparisonOf(against, entry);
    const report =
      comparison.verdict === 'diverge'
        ? buildReport(comparison, { root, runNames: { a: against.name, b: entry.name } })
        : null;
    const row: MatrixRow = {
      name: entry.name,
      platform: entry.platform,
      node: entry.node,
      seed: entry.seed,
      reference: against.name,
      verdict: comparison.verdict,
      label: labelOf(entry, against, runs, agrees),
      firstDivergence: report?.firstDivergence ?? null,
      cause: report?.cause ?? null,
    };
    if (report && !detail) detail = { row, report };
    return row;
  });
  const result: MatrixReport = {
    schema: 'detdrift.matrix/1',
    verdict: rows.some((row) => row.verdict === 'diverge') ? 'diverge' : 'agree',
    reference: reference.name,
    runs: rows,
    unpaired: plan.unpaired.map((entry) => entry.name),
  };
  // Trace strings come from dependencies: JSON keeps them exact, every other form shows them inert.
  const shown = inertData(result);
  const text = options.json ? jsonText(result, 2) + '\n' : renderMatrixText(shown);
  // Inside GitHub Actions the text is also fenced from the runner.
  process.stdout.write(!options.json && process.env.GITHUB_ACTIONS === 'true' ? relayUntrusted(text) : text);
  if (options.summary) writeReportFile(options.summary, renderMatrixMarkdown(shown), true);
  const page = () => renderMatrixHtml(shown, detail && inertData<MatrixDetail>(detail));
  for (const target of options.reports) {
    writeReportFile(target.file ?? DEFAULTS.reportFiles.html, page(), target.append);
  }
  return verdictStatus(result.verdict);
}
