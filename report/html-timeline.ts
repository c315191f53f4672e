/**
 * The HTML report's timeline: both runs as lanes of calls by call index (not wall time), aligned
 * step by step, colored by API family, with the first divergence highlighted. Stretches where the
 * runs agree, away from any difference, fold into a `<details>` that opens on click.
 */
import { capitalized } from './describe.js';
import { describeValue, runNames } from './text.js';
import { FAMILIES } from './html-assets.js';
import { count, familyClass, familyOfApi, frame } from './html-evidence.js';
import { html, type Markup } from './html-markup.js';
import type { DivergenceView, EventView, Report, RunNames, TimelineCall, TimelineOp, TimelineView } from './types.js';

/** Steps kept open on each side of a difference, and around the first divergence. */
const NEAR_DIFFERENCE = 3;
const NEAR_DIVERGENCE = 8;
/** A shorter agreeing stretch stays open: folding it would hide as much as it saves. */
const FOLD_AT_LEAST = 6;

const KINDS: Readonly<Record<TimelineOp['kind'], readonly [string, (names: RunNames) => string]>> = {
  equal: ['=', () => 'the same call in both runs'],
  changed: ['≠', () => 'the same call, with a value that should agree and does not'],
  removed: ['−', ({ a }) => `a call only ${a} makes`],
  inserted: ['+', ({ b }) => `a call only ${b} makes`],
};

export function timelineSection(report: Report): Markup | null {
  const timeline = report.timeline;
  if (!timeline) return null;
  const names = runNames(report);
  const output = outputDivergence(report.firstDivergence);
  const open = keptOpen(timeline);
  const rows: Markup[] = [];
  for (let start = 0; start < timeline.ops.length; ) {
    let end = start + 1;
    while (end < timeline.ops.length && open[end] === open[start]) end++;
    const stretch = timeline.ops
      .slice(start, end)
      .map((op, offset) => step(op, start + offset, timeline.at, output, names));
    rows.push(
      open[start] || end - start < FOLD_AT_LEAST
        ? html`${stretch}`
        : fold(timeline.ops.slice(start, end), stretch, names),
    );
    start = end;
  }
  if (output && timeline.at === timeline.ops.length) rows.push(outputRow(output, names));
  return html`<section id="timeline"><h2>Timeline of process <code>${timeline.process}</code></h2>
<p class="muted">Calls by index in each run, aligned: <b>−</b> only ${names.a} makes the call, <b>+</b> only ${names.b}, <b>≠</b> a value that should agree differs. <a href="#divergence">Jump to the first divergence</a>.</p>
${overview(timeline, names)}
<div class="legend">${FAMILIES.map((family) => html`<span><span class="chip ${familyClass(family)}"></span>${family}</span>`)}</div>
<div class="lanes"><div class="lane-head"><div>${names.a}</div><div></div><div>${names.b}</div></div>
${gap(timeline.before, 'earlier', 'before the first divergence', names)}${rows}${gap(timeline.after, 'later', 'not aligned here', names)}</div></section>`;
}

/** Which steps stay open: every difference and the first divergence, with a few steps around them. */
function keptOpen(timeline: TimelineView): boolean[] {
  const open = timeline.ops.map(() => false);
  const keep = (center: number, radius: number) => {
    for (let i = Math.max(0, center - radius); i <= Math.min(open.length - 1, center + radius); i++) open[i] = true;
  };
  for (const [index, op] of timeline.ops.entries()) if (op.kind !== 'equal') keep(index, NEAR_DIFFERENCE);
  keep(timeline.at, NEAR_DIVERGENCE);
  return open;
}

function step(op: TimelineOp, index: number, at: number, output: EventPair | null, names: RunNames): Markup {
  const focus = index === at && !output;
  const [mark, meaning] = KINDS[op.kind] ?? ['?', () => op.kind];
  const row = html`<div class="op op-${op.kind}${focus ? ' divergence' : ''}"${focus ? html` id="divergence"` : null}>
${call(op.a, 'a')}<div class="kind" title="${meaning(names)}">${mark}</div>${call(op.b, 'b')}</div>`;
  return index === at && output ? html`${outputRow(output, names)}${row}` : row;
}

function call(event: TimelineCall | null, side: 'a' | 'b'): Markup {
  if (!event) return html`<div class="call ${side}"></div>`;
  return html`<div class="call ${side} ${familyClass(event.family)}"><span class="idx">#${event.index}</span><span class="api">${event.api}</span><span class="val">${event.value}</span><span class="site">${event.site ? frame(event.site) : '(stack not taken)'}</span></div>`;
}

function fold(ops: readonly TimelineOp[], rows: readonly Markup[], names: RunNames): Markup {
  const first = ops.find((op) => op.a)?.a;
  const last = ops.findLast((op) => op.a)?.a;
  const range = first && last ? ` (#${first.index}–#${last.index} of ${names.a})` : '';
  return html`<details class="fold"><summary>${ops.length} calls agree${range}</summary>${rows}</details>`;
}

function gap(calls: TimelineView['before'], which: string, why: string, names: RunNames): Markup | null {
  if (calls.a === 0 && calls.b === 0) return null;
  return html`<div class="gap">${count(calls.a)} ${which} calls of ${names.a} and ${count(calls.b)} of ${names.b}, ${why}</div>`;
}

type EventPair = { readonly a: EventView | null; readonly b: EventView | null };

/** The first divergence's two outputs, when it is one: the lanes hold calls, so it goes between them. */
function outputDivergence(divergence: DivergenceView | null | undefined): EventPair | null {
  if (!divergence) return null;
  const isOutput =
    divergence.reason === 'output' ||
    [divergence.a, divergence.b].some((event) => event && familyOfApi(event.api) === 'output');
  return isOutput ? { a: divergence.a, b: divergence.b } : null;
}

function outputRow({ a, b }: EventPair, names: RunNames): Markup {
  const what = (event: EventView | null) =>
    event ? html`<code>${event.api}</code> ${describeValue(event.value)}` : html`nothing (the run ends first)`;
  return html`<div class="op divergence output-divergence" id="divergence">The outputs part here: ${names.a} writes ${what(a)}; ${names.b} writes ${what(b)}</div>`;
}

/** Each run as a bar of all its calls, the window shown below it, and where the runs part. */
function overview(timeline: TimelineView, names: RunNames): Markup {
  const bar = (side: 'a' | 'b', y: number) => {
    const shown = timeline.ops.filter((op) => op[side]).length;
    const total = Math.max(1, timeline.before[side] + shown + timeline.after[side]);
    const at = timeline.before[side] + timeline.ops.slice(0, timeline.at).filter((op) => op[side]).length;
    const x = (calls: number) => ((1000 * calls) / total).toFixed(1);
    return html`<rect class="span" x="0" y="${y}" width="1000" height="12"/><rect class="window" x="${x(timeline.before[side])}" y="${y}" width="${Math.max(2, Number(x(shown)))}" height="12"/>
<line class="at" x1="${x(at)}" x2="${x(at)}" y1="${y - 2}" y2="${y + 14}"/>`;
  };
  const sizes = (['a', 'b'] as const).map((side) =>
    count(timeline.before[side] + timeline.ops.filter((op) => op[side]).length + timeline.after[side]),
  );
  return html`<svg class="overview" viewBox="0 0 1000 36" preserveAspectRatio="none" role="img" aria-label="${names.a} has ${sizes[0]} calls, ${names.b} ${sizes[1]}; the shaded part is shown below, the red line is the first divergence">${bar('a', 4)}${bar('b', 22)}</svg>
<p class="muted">${capitalized(names.a)}: ${sizes[0]} calls (top bar); ${names.b}: ${sizes[1]} calls (bottom bar). The shaded part is shown below; the red line is the first divergence.</p>`;
}
