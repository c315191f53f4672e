/**
 * `detdrift matrix --report html`: one page with the platform × seed grid, each cell the run's
 * verdict against the reference run of its seed, and below it the whole report of the first run
 * that diverges (its cause, timeline, stacks and counts).
 */
import { describeCulprit } from './describe.js';
import { page, reportBody } from './html.js';
import { html, type Markup } from './html-markup.js';
import type { MatrixReport, MatrixRow, Report } from './types.js';

/** The first diverging run and its report, drawn under the grid. */
export interface MatrixDetail {
  readonly row: MatrixRow;
  readonly report: Report;
}

export function renderMatrixHtml(matrix: MatrixReport, detail: MatrixDetail | null): string {
  const title = `detdrift matrix: ${matrix.verdict === 'agree' ? 'every run agrees with' : 'runs diverge from'} ${matrix.reference}`;
  const unpaired =
    matrix.unpaired.length > 0
      ? html`<p>Not compared (no reference run of their seed): <code>${matrix.unpaired.join(', ')}</code></p>`
      : null;
  const below = detail
    ? html`<h2 id="detail">${detail.row.name} against ${detail.row.reference}</h2>${reportBody(detail.report, 'h2')}`
    : null;
  return page(
    title,
    html`<header id="verdict" class="verdict ${matrix.verdict === 'agree' ? 'agree' : 'diverge'}"><h1>${title}</h1>
<p>Each run against the reference run of its seed, compared with paths, line endings and host identity normalized.</p></header>
${grid(matrix)}${unpaired}${below}`,
  );
}

/** Platform and Node down, seed across. */
function grid(matrix: MatrixReport): Markup {
  const configurations = [...new Set(matrix.runs.map(configuration))];
  const seeds = [...new Set(matrix.runs.map((row) => row.seed ?? '-'))];
  const cell = (config: string, seed: string) => {
    const row = matrix.runs.find(
      (candidate) => configuration(candidate) === config && (candidate.seed ?? '-') === seed,
    );
    if (!row) return html`<td class="muted">—</td>`;
    const why = row.verdict === 'diverge' ? describeCulprit(row.cause) : null;
    return html`<td class="${row.label}"><b>${row.label}</b><br><span class="muted">${row.name} vs ${row.reference}</span>${why ? html`<br>${why}` : null}</td>`;
  };
  return html`<section id="grid"><h2>Platform × seed</h2><table class="grid"><thead><tr><th></th>${seeds.map((seed) => html`<th>seed ${seed}</th>`)}</tr></thead>
<tbody>${configurations.map((config) => html`<tr><th>${config}</th>${seeds.map((seed) => cell(config, seed))}</tr>`)}</tbody></table></section>`;
}

function configuration(row: MatrixRow): string {
  return `${row.platform}, Node ${row.node}`;
}
