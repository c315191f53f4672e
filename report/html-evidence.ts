/**
 * The HTML report's evidence below the timeline: the two stacks at the first divergence side by
 * side, with the frames of each package grouped, and the calls per API and per site of both runs.
 * Also the small pieces every part of the page draws a frame, a family or a count with.
 */
import { API_TABLE } from '../tracer/apis.js';
import { FAMILIES } from './html-assets.js';
import { html, type Markup } from './html-markup.js';
import { capitalized, describeFrame } from './describe.js';
import { runNames } from './text.js';
import type { CountView, DivergenceView, FrameView, Report, RunNames } from './types.js';

/** The CSS class of an API family; a trace names its own families, so an unknown one is `other`. */
export function familyClass(family: string | undefined): string {
  return `fam-${FAMILIES.includes(family as (typeof FAMILIES)[number]) ? family : 'other'}`;
}

/** The family of a canonical API name (`new Date`), or of a per-site key that starts with one. */
export function familyOfApi(key: string): string | undefined {
  return API_TABLE.find((spec) => key === spec.api || key.startsWith(`${spec.api} `))?.family;
}

/** A count with thousands separators, the same on every machine; whatever else a saved report has there, as text. */
export function count(value: number): string {
  return Number.isFinite(value) ? value.toLocaleString('en-US') : String(value);
}

export function frame(at: FrameView): Markup {
  return html`<code>${describeFrame(at)}</code>`;
}

/** Both runs' stacks at the first divergence, innermost frame first. */
export function stacksSection(divergence: DivergenceView | null, names: RunNames): Markup | null {
  if (!divergence || (!divergence.a?.stack.length && !divergence.b?.stack.length)) return null;
  return html`<section id="stacks"><h2>Stacks at the first divergence</h2>
<p class="muted">Innermost frame first; frames in <code>node_modules</code> are grouped by package, the project's own code is marked.</p>
<div class="stacks">${stack(names.a, divergence.a?.stack ?? [])}${stack(names.b, divergence.b?.stack ?? [])}</div></section>`;
}

function stack(title: string, frames: readonly FrameView[]): Markup {
  const groups: FrameView[][] = [];
  for (const at of frames) {
    const last = groups.at(-1);
    if (last && last[0]!.package === at.package) last.push(at);
    else groups.push([at]);
  }
  const firstParty = frames.find((at) => at.package === null);
  const items = (group: readonly FrameView[]) =>
    group.map((at) => html`<li class="${at === firstParty ? 'first-party' : ''}">${frame(at)}</li>`);
  const body = groups.map((group) =>
    group[0]!.package === null
      ? html`<div class="own"><ol>${items(group)}</ol></div>`
      : html`<div class="pkg"><div>${group[0]!.package} <span class="muted">${group.length} frame${group.length === 1 ? '' : 's'}</span></div><ol>${items(group)}</ol></div>`,
  );
  return html`<div class="stack"><h3>${capitalized(title)}</h3>${frames.length === 0 ? html`<p class="muted">(no stack: the call is not in this run, or its stack was not taken)</p>` : body}</div>`;
}

/** Calls per API (all) and per site (those that differ most), in both runs. */
export function countsSection(report: Report): Markup | null {
  const { perApi, perSite } = report.differences;
  if (perApi.length === 0 && perSite.length === 0) return null;
  return html`<section id="counts"><h2>Calls per API and per site</h2>
${countTable('API', perApi, runNames(report))}${perSite.length > 0 ? html`<h3>Per site <span class="muted">(the ${perSite.length} that differ most)</span></h3>${countTable('site', perSite, runNames(report))}` : null}</section>`;
}

function countTable(title: string, rows: readonly CountView[], names: RunNames): Markup {
  const body = rows.map(
    (
      row,
    ) => html`<tr class="${row.a !== row.b ? 'differs' : ''}"><td><span class="chip ${familyClass(familyOfApi(row.key))}"></span><code>${row.key}</code></td>
<td class="num">${count(row.a)}</td><td class="num">${count(row.b)}</td><td class="num">${row.a === row.b ? '' : `${row.b > row.a ? '+' : ''}${count(row.b - row.a)}`}</td></tr>`,
  );
  return html`<table class="counts"><thead><tr><th>${title}</th><th class="num">${names.a}</th><th class="num">${names.b}</th><th class="num">${names.b} − ${names.a}</th></tr></thead><tbody>${body}</tbody></table>`;
}
