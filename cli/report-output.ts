import type { BisectResult } from '../diffing/bisect.js';
import type { Comparison } from '../diffing/compare.js';
import { buildReport } from '../report/build.js';
import { renderJson } from '../report/json.js';
import { renderTerminal } from '../report/terminal.js';
import type { Report } from '../report/types.js';
import { LineOutput } from './output.js';

/** Exit statuses of the comparing commands: the runs agree, or they diverge. */
export const AGREE = 0;
export const DIVERGE = 1;

/** Builds the report, prints it (JSON, or text with colors on a terminal), and gives the exit status. */
export async function emitReport(
  comparison: Comparison,
  root: string,
  json: boolean,
  extra: { confirmation?: BisectResult | null; replay?: string | null } = {},
): Promise<{ report: Report; status: number }> {
  const report = buildReport(comparison, { root, ...extra });
  const color = process.stdout.isTTY === true && !process.env.NO_COLOR;
  const output = new LineOutput(process.stdout);
  output.line((json ? renderJson(report) : renderTerminal(report, { color, width: process.stdout.columns ?? 100 })).trimEnd());
  await output.flush();
  return { report, status: report.verdict === 'agree' ? AGREE : DIVERGE };
}
