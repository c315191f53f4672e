/** `detdrift matrix`: its table as text, and as the job summary's Markdown. */
import { VARS } from '../tracer/settings.js';
import { describeCulprit, describeDivergence, describeFrame } from './describe.js';
import { code, table } from './markdown.js';
import type { CauseView, DivergenceView, MatrixReport, MatrixRow, RunNames } from './types.js';

/** The table, then one paragraph per diverging run: where it parts from its reference, and why. */
export function renderMatrixText(report: MatrixReport): string {
  const header = ['run', 'platform', 'node', 'seed', 'against', 'result'];
  const cells = report.runs.map((row) => [row.name, row.platform, row.node, row.seed ?? '-', row.reference, row.label]);
  const widths = header.map((title, index) => Math.max(title.length, ...cells.map((row) => row[index]!.length)));
  const line = (row: readonly string[]) =>
    '  ' +
    row
      .map((cell, index) => cell.padEnd(widths[index]!))
      .join('  ')
      .trimEnd();
  const diverging = report.runs.filter((row) => row.verdict === 'diverge');
  const out = [
    `detdrift matrix: ${report.runs.length} run${report.runs.length === 1 ? '' : 's'} against ${report.reference}: ${diverging.length === 0 ? 'all agree' : `${diverging.length} diverge`}`,
    line(header),
    ...cells.map(line),
  ];
  for (const row of diverging) {
    out.push('', `${row.name} (${row.label}) against ${row.reference}:`);
    if (row.firstDivergence)
      out.push(
        `  first divergence: ${describeDivergence(row.firstDivergence, names(row))}${eventText(row.firstDivergence)}`,
      );
    out.push(`  cause: ${causeText(row.cause)}`);
  }
  if (report.unpaired.length > 0)
    out.push('', `not compared (no reference run of their seed): ${report.unpaired.join(', ')}`);
  return out.join('\n') + '\n';
}

/** The job summary: every string from a trace as inert code (report/markdown.ts). */
export function renderMatrixMarkdown(report: MatrixReport): string {
  const rows = report.runs.map((row) => [
    code(row.name, { table: true }),
    code(`${row.platform}, Node ${row.node}, seed ${row.seed ?? '-'}`, { table: true }),
    row.label === 'agree' ? 'agree' : `**${row.label}**`,
    row.verdict === 'agree'
      ? ''
      : code(
          `${row.firstDivergence ? describeDivergence(row.firstDivergence, names(row)) + '; ' : ''}${causeText(row.cause)}`,
          { table: true },
        ),
  ]);
  const title = `### detdrift matrix: ${report.verdict === 'agree' ? 'every run agrees with' : 'runs diverge from'} ${code(report.reference)}`;
  const unpaired =
    report.unpaired.length > 0
      ? [`Not compared (no reference run of their seed): ${report.unpaired.map((name) => code(name)).join(', ')}`, '']
      : [];
  return (
    [title, '', table(['run', 'configuration', 'result', 'first divergence and cause'], rows), '', ...unpaired].join(
      '\n',
    ) + '\n'
  );
}

/** A run and its reference by their names: `linux-20-seed42 and darwin-20-seed42 make different calls`. */
function names(row: MatrixRow): RunNames {
  return { a: row.reference, b: row.name };
}

function eventText(divergence: DivergenceView): string {
  const event = divergence.b ?? divergence.a;
  if (!event) return '';
  return `, ${event.api}${event.form === 'call' ? '' : ` (${event.form})`}${event.site ? ` at ${describeFrame(event.site)}` : ''}`;
}

function causeText(cause: CauseView | null): string {
  if (!cause) return 'none found';
  const at = cause.site ? ` at ${describeFrame(cause.site)}` : '';
  const mine =
    cause.firstPartySite && cause.firstPartySite !== cause.site ? `, from ${describeFrame(cause.firstPartySite)}` : '';
  const unsampled =
    !cause.site && cause.stackNote
      ? `; its stack was not sampled (${VARS.stacksAt}=${cause.stackNote.stacksAt} on a replay of that run takes it)`
      : '';
  return `${describeCulprit(cause)}${at}${mine} (${cause.rule})${unsampled}`;
}
