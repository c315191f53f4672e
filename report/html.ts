/**
 * The report as one self-contained HTML page: the verdict and the cause at the top (API, call site
 * with its code frame, package, bump, first project frame, the replay command with a copy button),
 * the aligned timeline, both stacks, and the counts. No network: the style and the script are
 * inline, allowed by hash in a Content-Security-Policy that allows nothing else.
 */
import { createHash } from 'node:crypto';
import {
  describeMatched,
  capitalized,
  describeBump,
  describeBumpVerdict,
  describeConfidence,
  describeConfirmation,
  describeContexts,
  describeCulprit,
  describeFailure,
  describeOrdering,
  describeStackNote,
  sameFrame,
  siteUnknown,
} from './describe.js';
import { describeValue, runNames } from './text.js';
import { codeFrameText } from './code-frame.js';
import { SCRIPT, STYLE } from './html-assets.js';
import { describeSeedCause, describeSeeds } from './seeds.js';
import { count, countsSection, familyClass, familyOfApi, frame, stacksSection } from './html-evidence.js';
import { html, Markup } from './html-markup.js';
import { timelineSection } from './html-timeline.js';
import type { BumpSectionView, CauseView, EventView, Report, RunNames, RunView } from './types.js';

export function renderHtml(report: Report): string {
  return page(`detdrift: the runs ${report.verdict === 'agree' ? 'agree' : 'diverge'}`, reportBody(report, 'h1'));
}

/** A whole page around `body`; the matrix page uses it too. */
export function page(title: string, body: Markup): string {
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  const policy = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; base-uri 'none'; form-action 'none'`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${policy}">
<meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${new Markup(STYLE)}</style></head>
<body>${body}<script>${new Markup(SCRIPT)}</script></body></html>
`.text;
}

/** The sections of one report; `heading` is its title's level (the matrix page nests a report under its own title). */
export function reportBody(report: Report, heading: 'h1' | 'h2'): Markup {
  const names = runNames(report);
  return html`${verdict(report, heading)}${seedsSection(report)}${timelineSection(report)}${stacksSection(report.firstDivergence, names)}${countsSection(report)}${runsSection(report, names)}`;
}

function verdict(report: Report, heading: 'h1' | 'h2'): Markup {
  const { a } = report.runs;
  const names = runNames(report);
  const title = html`<${heading}>detdrift: the runs ${report.verdict === 'agree' ? 'agree' : 'diverge'}</${heading}>`;
  const where = a
    ? `${report.firstDivergence ? `process ${report.firstDivergence.process}, ` : ''}${a.mode} mode, seed ${a.seed ?? 'none'}`
    : '';
  if (report.verdict === 'agree') {
    const ordered = report.ordering && capitalized(describeOrdering(report.ordering));
    const ordering = ordered ? ` ${ordered}; the outputs did not depend on it.` : '';
    return html`<header id="verdict" class="verdict agree">${title}${failure(report)}<p>${where}: ${describeMatched(report, count)}; ${count(report.differences.uncontrolledValues)} uncontrolled values differ, as they may in ${a?.mode ?? 'observe'} mode.${ordering}</p>${perturbation(report, names)}</header>`;
  }
  return html`<header id="verdict" class="verdict diverge">${title}${failure(report)}<p class="muted">${where}</p>
${report.cause ? cause(report.cause, names) : html`<p class="culprit">No cause found.</p>`}${nearby(report, names)}${confirmation(report, names)}${replay(report, names)}${perturbation(report, names)}</header>${bumpSection(report.bump)}`;
}

function cause(found: CauseView, names: RunNames): Markup {
  const what =
    found.kind === 'call'
      ? html`<span class="chip ${familyClass(familyOfApi(found.api ?? ''))}"></span><code>${found.api ?? '?'}</code>${found.form && found.form !== 'call' ? ` (${found.form})` : ''} ${siteUnknown(found) && !found.package ? ' at an unknown call site' : html` in <code>${found.package ?? 'the project'}</code>`}, seen in ${names[found.run]}`
      : describeCulprit(found);
  const facts: Array<[string, Markup | string]> = [];
  if (found.site) facts.push(['call site', frame(found.site)]);
  const stackNote = describeStackNote(found);
  if (stackNote) facts.push([found.site ? 'its stack' : 'call site', stackNote]);
  if (found.firstPartySite && !sameFrame(found.firstPartySite, found.site))
    facts.push(['first project frame', frame(found.firstPartySite)]);
  if (found.bump) facts.push(['brought by', html`<code>${describeBump(found.bump)}</code>`]);
  if (found.value)
    facts.push([
      'value',
      html`${names.a} <code>${describeValue(found.value.a)}</code>, ${names.b} <code>${describeValue(found.value.b)}</code>`,
    ]);
  if (found.contexts) facts.push(['finished in another order', describeContexts(found.contexts)]);
  facts.push(['why', found.rule]);
  return html`<p class="culprit" id="cause">Cause: ${what} <span class="badge">${describeConfidence(found.confidence)}</span></p>
<dl class="facts">${facts.map(([term, detail]) => html`<dt>${term}</dt><dd>${detail}</dd>`)}</dl>${source(found)}`;
}

/** The code frame, the blamed call's line (the one @babel/code-frame marks `>`) highlighted. */
function source({ source: code }: CauseView): Markup | null {
  if (!code) return null;
  const lines = codeFrameText(code)
    .split('\n')
    .map((line) => html`<span class="${line.startsWith('>') ? 'hit' : ''}">${line}</span>`);
  return html`<p class="muted"><code>${code.file}</code>:</p><pre class="source">${lines}</pre>`;
}

/** When the cause is outside the hook: run A's I/O, timer and fs calls nearest where the outputs part. */
function nearby({ nearby: events }: Report, names: RunNames): Markup | null {
  if (events.length === 0) return null;
  const item = (event: EventView) =>
    html`<li>#${event.index} <code>${event.api}</code> ${describeValue(event.value)}${event.site ? html` at ${frame(event.site)}` : null}</li>`;
  return html`<p>${capitalized(names.a)}'s I/O, timer and fs calls nearest the first output divergence:</p><ul>${events.map(item)}</ul>`;
}

function failure({ failure: failed }: Report): Markup | null {
  if (!failed) return null;
  return html`<p class="culprit">${capitalized(describeFailure(failed))}. Its stderr ends:</p><pre class="source">${failed.stderr.join('\n')}</pre>`;
}

function confirmation({ confirmation: found }: Report, names: RunNames): Markup | null {
  return found
    ? html`<p>Replay: <span class="badge">${found.status}</span> ${describeConfirmation(found, names)}</p>`
    : null;
}

function replay({ replay: command, replayNote: note }: Report, names: RunNames): Markup | null {
  if (!command) return note ? html`<p>Replay ${names.a} locally: ${note}.</p>` : null;
  return html`<p>Replay ${names.a} locally:</p><div class="replay"><code id="replay-command">${command}</code><button type="button" data-copy="replay-command">Copy</button></div>`;
}

function perturbation({ perturbation: found }: Report, names: RunNames): Markup | null {
  if (!found) return null;
  const verdict = found.dimension
    ? html`<p>Perturbation <code>${found.dimension}</code> makes the runs part: ${names.a} had <code>${found.detail ?? ''}</code>, ${names.b} is the plain run.</p>`
    : html`<p>None of the ${found.tried.length} perturbations tried makes the runs part.</p>`;
  return html`${verdict}<ul>${found.tried.map((tried) => html`<li><code>${tried.dimension}</code> ${tried.detail}: ${tried.verdict}</li>`)}</ul>`;
}

function bumpSection(bump: BumpSectionView | null): Markup | null {
  if (!bump) return null;
  // A transitive change's description names the chain it comes through.
  const changes = bump.changes.map(
    (change) => html`<li><code>${describeBump(change)}</code>${change.direct ? ' direct' : null}</li>`,
  );
  const added = bump.addedSites.map(
    (site) =>
      html`<li><code>${site.api}</code> at <code>${site.package}/${site.file}:${site.line}:${site.column}</code>${site.reached ? ' (reached by head)' : ''}${site.browserOnly ? ' (a build for browsers: Node does not load it)' : ''}</li>`,
  );
  return html`<section id="bump"><h2>Dependency bump</h2><p>${describeBumpVerdict(bump.verdict)} (seed ${bump.seed ?? 'none'}).</p><ul>${changes}</ul>${added.length > 0 ? html`<p>Clock and entropy call sites the new versions added:</p><ul>${added}</ul>` : null}</section>`;
}

/** A seed list: the counts, the diverging seeds with their causes, the others as runs. */
function seedsSection({ seeds }: Report): Markup | null {
  if (!seeds) return null;
  const words = describeSeeds(seeds);
  const diverged = words.diverged.map(
    (entry) => html`<li>seed <code>${entry.seed ?? 'none'}</code>: ${describeSeedCause(entry)}</li>`,
  );
  return html`<section id="seeds"><h2>Seeds</h2><p>${capitalized(words.counts)}.</p>${diverged.length > 0 ? html`<ul>${diverged}</ul>` : null}${words.moreDiverged ? html`<p>${capitalized(words.moreDiverged)}.</p>` : null}
${words.agreed ? html`<p>Agree: <code>${words.agreed}</code>.</p>` : null}${words.notChecked ? html`<p>Not checked: <code>${words.notChecked}</code> (${words.whyNotChecked}).</p>` : null}</section>`;
}

function runsSection({ runs }: Report, names: RunNames): Markup | null {
  if (!runs.a && !runs.b) return null;
  const row = (label: string, cell: (run: RunView) => string) =>
    html`<tr><th>${label}</th><td>${runs.a ? cell(runs.a) : ''}</td><td>${runs.b ? cell(runs.b) : ''}</td></tr>`;
  return html`<section id="runs"><h2>Runs</h2><table><thead><tr><th></th><th>${names.a}</th><th>${names.b}</th></tr></thead><tbody>
${row('trace', (run) => run.trace)}${row('Node', (run) => `${run.node} on ${run.platform}-${run.arch}`)}${row('mode, seed', (run) => `${run.mode}, ${run.seed ?? 'none'}`)}
${row('calls, outputs', (run) => `${count(run.calls)}, ${count(run.outputs)}`)}${row('ended', (run) => (run.complete ? `exit code ${run.exitCode ?? '?'}` : 'cut short'))}</tbody></table></section>`;
}
