/**
 * The job summary (`$GITHUB_STEP_SUMMARY`) in Markdown: the verdict, the cause with its code frame,
 * the replay command, the first divergence with both stacks side by side, calls per API, and the
 * per-platform table when the report has one. GitHub takes at most 1 MiB per step's summary: long
 * tables are cut, with a note, until the whole fits.
 */
import {
  describeMatched,
  capitalized,
  describeBump,
  describeBumpVerdict,
  describeNextStep,
  describeConfidence,
  describeConfirmation,
  describeControl,
  describeContext,
  describeContexts,
  describeDivergence,
  describeFailure,
  describeOrdering,
  describeFrame,
  describeCauseProcess,
  describeStackNote,
  describeWarmup,
  sameFrame,
  siteUnknown,
} from './describe.js';
import { describeValue, runNames } from './text.js';
import { codeFrameText } from './code-frame.js';
import { code, codeBlock, count, table } from './markdown.js';
import { describeSeeds } from './seeds.js';
import type {
  BumpSectionView,
  CauseView,
  DivergenceView,
  EventView,
  FrameView,
  PerturbationView,
  Report,
  RunNames,
  SeedView,
} from './types.js';

/** 1 MiB, less room for what other steps append to the same summary file. */
export const SUMMARY_LIMIT = 1_000_000;

/** Rows per table, tried in turn until the summary fits its byte budget. */
const ROW_LIMITS = [200, 50, 10, 0];

export interface MarkdownLimits {
  /** the most rows any one table shows */
  readonly rows: number;
}

/** The summary, at most `limit` bytes of UTF-8. */
export function renderSummary(report: Report, limit = SUMMARY_LIMIT): string {
  return fit(
    (limits) =>
      [heading(report, '##'), ...overview(report, limits), ...details(report, limits, '###')].join('\n\n') + '\n',
    limit,
    Buffer.byteLength,
  );
}

/** Renders with fewer table rows until it fits; cut at a line as a last resort. */
export function fit(render: (limits: MarkdownLimits) => string, limit: number, size: (text: string) => number): string {
  for (const rows of ROW_LIMITS) {
    const text = render({ rows });
    if (size(text) <= limit) return text;
  }
  const note = '\n\n*(cut: the report is longer than this summary may be)*\n';
  let text = render({ rows: 0 });
  while (text !== '' && size(text) + size(note) > limit)
    text = text.slice(0, Math.max(0, text.lastIndexOf('\n', Math.floor(text.length * 0.9))));
  return text + note;
}

export function heading(report: Report, level: string): string {
  return `${level} detdrift: the runs ${report.verdict === 'agree' ? 'agree' : 'diverge'}`;
}

/**
 * What every Markdown form starts with: the runs, what a bump or a perturbation did, the cause, replay's
 * verdict and command.
 */
export function overview(report: Report, limits: MarkdownLimits): string[] {
  const { a } = report.runs;
  const names = runNames(report);
  const out: string[] = [];
  if (report.failure)
    out.push(
      `**Failed**: ${capitalized(describeFailure(report.failure))}. Its stderr ends:`,
      codeBlock(report.failure.stderr, 'text'),
    );
  if (a)
    out.push(
      `${capitalized(names.a)}: ${code(a.mode)} mode, seed ${a.seed === null ? 'none' : code(a.seed)}, Node ${code(a.node)} on ${code(`${a.platform}-${a.arch}`)}`,
    );
  if (report.warmup) out.push(`Warm-up: ${describeWarmup(report.warmup, (runner) => code(runner))}.`);
  if (report.seeds) out.push(...seeds(report.seeds, limits));
  if (report.bump) out.push(...bump(report.bump, limits));
  if (report.perturbation) out.push(...perturbation(report.perturbation, names));
  if (report.verdict === 'agree') {
    out.push(
      `${capitalized(describeMatched(report, count))}; ${count(report.differences.uncontrolledValues)} uncontrolled values differ, as they may in ${code(a?.mode ?? 'observe')} mode.`,
    );
    const ordered = report.ordering && capitalized(describeOrdering(report.ordering, code));
    if (ordered) out.push(`${ordered}; the outputs did not depend on it.`);
    return [...out, ...next(report)];
  }
  if (report.cause) out.push(...cause(report.cause, names, report.firstDivergence?.process ?? null));
  if (report.confirmation) out.push(`**Replay**: ${describeConfirmation(report.confirmation, names)}.`);
  if (report.replay) out.push(`Replay ${names.a} locally:`, codeBlock([report.replay], 'sh'));
  else if (report.replayNote) out.push(`Replay ${names.a} locally: ${report.replayNote}.`);
  return [...out, ...next(report)];
}

/** What to do next, one line each. */
function next(report: Report): string[] {
  return (report.next ?? []).map((step) => `**Next**: ${capitalized(describeNextStep(step, (text) => code(text)))}.`);
}

/**
 * `detdrift bump`: the verdict for the seed, the changed packages, and the clock and entropy sites the new
 * versions added.
 */
function bump(section: BumpSectionView, limits: MarkdownLimits): string[] {
  const out = [
    `**Bump**: ${describeBumpVerdict(section.verdict)} (seed ${section.seed === null ? 'none' : code(section.seed)}).`,
  ];
  const changes = section.changes.map((change) => [
    code(change.name, { table: true }),
    code(change.from ?? '(none)', { table: true }),
    code(change.to ?? '(removed)', { table: true }),
    code(change.kind, { table: true }),
    change.direct ? 'direct' : code(change.path.join(' > '), { table: true }),
  ]);
  if (changes.length > 0) out.push(...capped(['package', 'from', 'to', 'kind', 'via'], changes, limits));
  const rows = (browserOnly: boolean) =>
    section.addedSites
      .filter((site) => (site.browserOnly ?? false) === browserOnly)
      .map((site) => [
        code(site.api, { table: true }),
        code(`${site.package}/${site.file}:${site.line}:${site.column}${site.fn ? ` ${site.fn}` : ''}`, {
          table: true,
        }),
        site.reached ? 'yes' : 'no',
      ]);
  const [sites, browser] = [rows(false), rows(true)];
  if (sites.length > 0)
    out.push(
      'Clock and entropy calls the new versions add:',
      ...capped(['API', 'site', 'reached by head'], sites, limits),
    );
  if (browser.length > 0)
    out.push(
      'In builds for browsers, which Node does not load:',
      ...capped(['API', 'site', 'reached by head'], browser, limits),
    );
  return out;
}

/** A seed list: the counts, a row for each diverging seed, the others as runs. */
function seeds(list: readonly SeedView[], limits: MarkdownLimits): string[] {
  const words = describeSeeds(list);
  const out = [`**${capitalized(words.counts)}**.`];
  const sharded = list.some((entry) => entry.shard);
  const rows = words.diverged.map((entry) => [
    code(entry.seed ?? 'none', { table: true }),
    ...(sharded ? [entry.shard ? count(entry.shard) : ''] : []),
    code(entry.cause ?? 'the runs diverge', { table: true }),
  ]);
  if (rows.length > 0) out.push(...capped(['diverging seed', ...(sharded ? ['shard'] : []), 'cause'], rows, limits));
  if (words.moreDiverged) out.push(`${capitalized(words.moreDiverged)}.`);
  if (words.agreed) out.push(`Agree: ${code(words.agreed)}.`);
  if (words.notChecked) out.push(`Not checked: ${code(words.notChecked)} (${words.whyNotChecked}).`);
  return out;
}

/** `detdrift check --perturb`: which perturbation run A had, and every one tried against the plain run. */
function perturbation(section: PerturbationView, names: RunNames): string[] {
  const found = section.dimension
    ? `**Perturbation**: ${code(section.dimension)} makes the runs part: ${names.a} had ${code(section.detail ?? '')}, ${names.b} is the plain run.`
    : `**Perturbation**: none of the ${count(section.tried.length)} perturbations tried makes the runs part.`;
  const rows = section.tried.map((tried) => [
    code(tried.dimension, { table: true }),
    code(tried.detail, { table: true }),
    tried.verdict,
  ]);
  return rows.length > 0 ? [found, table(['perturbation', `${names.a} had`, 'verdict'], rows)] : [found];
}

function cause(cause: CauseView, names: RunNames, diverged: string | null): string[] {
  const what =
    cause.kind === 'call'
      ? `${code(cause.api ?? '?')} ${cause.package ? `in ${code(cause.package)}` : siteUnknown(cause) ? 'at an unknown call site' : 'in the project'}, seen in ${names[cause.run]}`
      : cause.kind === 'ordering'
        ? 'an ordering difference'
        : 'not explained by an intercepted source';
  const out = [`**Cause**: ${what} (${describeConfidence(cause.confidence)})`, `Why: ${code(cause.rule)}`];
  const rows: string[][] = [];
  const crossed = describeCauseProcess(cause, diverged);
  if (crossed) rows.push(['made in', code(crossed, { table: true })]);
  if (cause.site) rows.push(['call site', frame(cause.site)]);
  const stackNote = describeStackNote(cause);
  if (stackNote) rows.push([cause.site ? 'its stack' : 'call site', code(stackNote, { table: true, max: 1000 })]);
  if (cause.firstPartySite && !sameFrame(cause.firstPartySite, cause.site))
    rows.push(['first project frame', frame(cause.firstPartySite)]);
  if (cause.bump) rows.push(['dependency', code(describeBump(cause.bump), { table: true })]);
  if (cause.value)
    rows.push([
      'value',
      `${names.a} ${code(describeValue(cause.value.a), { table: true })}, ${names.b} ${code(describeValue(cause.value.b), { table: true })}`,
    ]);
  if (cause.contexts)
    rows.push([
      'finished in another order',
      describeContexts(cause.contexts, (context) => code(context, { table: true })),
    ]);
  if (rows.length > 0) out.push(table(['', ''], rows));
  if (cause.source) out.push(`${code(cause.source.file)}:`, codeBlock(codeFrameText(cause.source).split('\n'), 'js'));
  return out;
}

/** The evidence: the first divergence with both stacks, the first output divergence, counts, platforms. */
export function details(report: Report, limits: MarkdownLimits, level: string): string[] {
  if (report.verdict === 'agree') return [];
  const out: string[] = [];
  const names = runNames(report);
  const first = report.firstDivergence;
  if (first) out.push(`${level} First divergence`, ...divergence(first, names, limits, true));
  const output = report.outputDivergence;
  if (output && !(first && first.reason === output.reason && first.index.a === output.index.a)) {
    out.push(`${level} First output divergence`, ...divergence(output, names, limits, false));
  }
  const perApi = report.differences.perApi;
  if (perApi.length > 0) {
    const rows = perApi.map((row) => [code(row.key, { table: true }), count(row.a), count(row.b)]);
    out.push(`${level} Calls per API`, ...capped(['API', names.a, names.b], rows, limits, ['l', 'r', 'r']));
  }
  const platforms = platformRows(report);
  if (platforms) out.push(`${level} Per platform`, ...capped(platforms.header, platforms.rows, limits));
  const others = report.differences.processes.filter(
    (entry) => entry.verdict === 'diverge' && entry.process !== first?.process,
  );
  if (others.length > 0) {
    const shown = others.slice(0, Math.max(1, limits.rows)).map((entry) => code(entry.process));
    out.push(
      `Other diverging processes: ${shown.join(', ')}${others.length > shown.length ? ` and ${others.length - shown.length} more` : ''}`,
    );
  }
  return out;
}

function divergence(found: DivergenceView, names: RunNames, limits: MarkdownLimits, stacks: boolean): string[] {
  const out = [`${capitalized(describeDivergence(found, names))}, in process ${code(found.process)}.`];
  out.push(
    table(
      ['', names.a, names.b],
      [
        ['call', event(found.a), event(found.b)],
        ['site', site(found.a), site(found.b)],
        ['ran in', context(found.a), context(found.b)],
      ],
    ),
  );
  if (!stacks) return out;
  const left = found.a?.stack ?? [];
  const right = found.b?.stack ?? [];
  const rows = Array.from({ length: Math.max(left.length, right.length) }, (_row, index) => [
    String(index),
    cell(left[index]),
    cell(right[index]),
  ]);
  if (rows.length > 0)
    out.push('Stacks, innermost frame first:', ...capped(['#', names.a, names.b], rows, limits, ['r']));
  return out;
}

/** A table of at most `limits.rows` rows, and a note of how many were left out. */
function capped(
  header: readonly string[],
  rows: readonly string[][],
  limits: MarkdownLimits,
  align?: readonly ('l' | 'r')[],
): string[] {
  if (rows.length <= limits.rows) return [table(header, rows, align)];
  const note = `*${rows.length - limits.rows} more rows not shown, to keep the summary within GitHub's size limit.*`;
  return limits.rows === 0 ? [note] : [table(header, rows.slice(0, limits.rows), align), note];
}

/** The per-platform table: not in every report yet, so drawn only when present and well formed. */
function platformRows(report: Report): { header: string[]; rows: string[][] } | null {
  const platforms: unknown = (report as { platforms?: unknown }).platforms;
  if (
    !Array.isArray(platforms) ||
    platforms.length === 0 ||
    !platforms.every((row) => typeof row === 'object' && row !== null)
  )
    return null;
  const keys = [...new Set(platforms.flatMap((row: object) => Object.keys(row)))].slice(0, 12);
  const rows = platforms.map((row: Record<string, unknown>) =>
    keys.map((key) =>
      row[key] === undefined
        ? ''
        : code(typeof row[key] === 'string' ? row[key] : JSON.stringify(row[key]), { table: true }),
    ),
  );
  return { header: keys.map((key) => code(key, { table: true })), rows };
}

function frame(at: FrameView): string {
  return code(describeFrame(at), { table: true });
}

function cell(at: FrameView | undefined): string {
  return at ? frame(at) : '';
}

function event(found: EventView | null): string {
  if (!found) return '*(no such call: the run ends or makes none here)*';
  const form = found.form === 'call' ? '' : ` (${found.form})`;
  return `${code(`${found.api}${form} = ${describeValue(found.value)}`, { table: true })}${describeControl(found.controlledBy)}`;
}

function site(found: EventView | null): string {
  return found?.site ? frame(found.site) : found ? '*(stack not taken)*' : '';
}

function context(found: EventView | null): string {
  return found ? describeContext(found.context, (key) => code(key, { table: true })) : '';
}
