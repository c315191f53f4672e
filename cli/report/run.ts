/**
 * `detdrift report REPORT.json --format F [-o FILE]`: renders a report that `--json` (or
 * `--report json`) wrote, in another form: a later workflow step can annotate, summarize, upload
 * SARIF, comment or publish a page from one saved report. `detdrift report A B` compares two
 * traces first, as `diff --no-confirm` would. Paths in annotations and SARIF are the project's,
 * found from the working directory. Exits 0 once rendered: the verdict is the comparing step's
 * status, not this one's. A saved report's replay command is made from the command after `--`,
 * never taken from the file (cli/shared/report-replay.ts).
 */
import { compare } from '../../diffing/compare.js';
import { buildReport } from '../../diffing/findings/build.js';
import { forLog, render } from '../../report/render.js';
import type { Report } from '../../report/types.js';
import type { CommandContext } from '../shared/options.js';
import { LineOutput, renderContext, writeReportFile } from '../shared/output.js';
import { findRoot } from '../shared/project.js';
import { readReport } from '../shared/report-file.js';
import { withReplay } from '../shared/report-replay.js';
import { assertTraces } from '../shared/traces.js';
import type { ReportOptions } from './options.js';

export async function run(options: ReportOptions, { logger }: CommandContext): Promise<number> {
  const root = findRoot(options.cwd);
  const report = options.traces
    ? compareTraces(options.traces, options.ignore, root)
    : withReplay(readReport(options.input), options.command);
  const context = renderContext(root);
  logger.debug({ format: options.format, verdict: report.verdict }, 'rendering');
  const text = render(report, options.format, context);
  if (options.out !== null) {
    writeReportFile(options.out, text, false);
    return 0;
  }
  const output = new LineOutput(process.stdout);
  output.line(forLog(text, options.format, context).trimEnd());
  await output.flush();
  return 0;
}

function compareTraces(
  { a, b }: NonNullable<ReportOptions['traces']>,
  ignore: ReportOptions['ignore'],
  root: string,
): Report {
  assertTraces(a, b);
  return buildReport(compare(a, b, { ignore }), { root });
}
