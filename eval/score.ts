/**
 * Scores one upgrade's recorded outputs against its ground truth: a pure function of what the
 * runner recorded, so the table can be recomputed (and tested) without the network.
 */

/** Where the first uncontrolled call an upgrade adds (or removes) lives, as the published code shows it. */
export interface TruthCall {
  readonly api: string;
  readonly package: string;
  readonly version: string;
  /** the file inside the package */
  readonly file: string;
  readonly line: number;
}

export interface Truth {
  /** head adds or removes an uncontrolled clock or entropy call that the seeded run reaches */
  readonly changed: boolean;
  readonly firstCall: TruthCall | null;
  readonly evidence: string;
}

/** The harness's own output (stdout, then stderr) of each run, and the time all four took. */
export interface RawRuns {
  readonly base: readonly [string, string];
  readonly head: readonly [string, string];
  readonly ms: number;
}

/** What `detdrift bump --json` gave (null when it printed no report), and how long it took. */
export interface DetdriftRun {
  readonly exitCode: number | null;
  readonly report: BumpReport | null;
  readonly ms: number;
  /** the end of its stderr when it printed no report */
  readonly error?: string;
}

/** The part of the detdrift.report/1 contract the scorer reads. */
export interface BumpReport {
  readonly bump: { readonly verdict: string } | null;
  readonly cause: {
    readonly kind: string;
    readonly api: string | null;
    readonly package: string | null;
    readonly site: { readonly file: string; readonly line: number } | null;
  } | null;
}

export interface Localization {
  readonly api: boolean;
  readonly package: boolean;
  readonly fileLine: boolean;
}

export interface Row {
  readonly upgrade: string;
  readonly changed: boolean;
  readonly raw: {
    /** flagged: head's two runs differ while base's agree; `already`: base's two runs already differ */
    readonly verdict: 'flagged' | 'quiet' | 'already';
    /** the first line where head's two runs differ, else where base's first run and head's differ; null when none */
    readonly firstLine: string | null;
    readonly names: Localization;
    readonly ms: number;
  };
  readonly detdrift: {
    readonly verdict: string;
    readonly flagged: boolean;
    /** `api at package/file:line` of the cause, or what stood in for one */
    readonly cause: string | null;
    readonly names: Localization;
    readonly ms: number;
  };
  /** detected: flagged on an upgrade that changed; false alarm: flagged on one that did not */
  readonly outcome: { readonly raw: Outcome; readonly detdrift: Outcome };
}

export type Outcome = 'detected' | 'missed' | 'false alarm' | 'quiet';

const NONE: Localization = { api: false, package: false, fileLine: false };

/** The first line where two logs differ, with its 1-based number; null when they are equal. */
export function firstDifferingLine(a: string, b: string): { line: number; a: string; b: string } | null {
  if (a === b) return null;
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) return { line: i + 1, a: left[i] ?? '', b: right[i] ?? '' };
  }
  return null;
}

/** Which of the call's API, package and file (with its line, as `file:line`) a text names. */
export function namesIn(text: string, call: TruthCall | null): Localization {
  if (!call) return NONE;
  const shortApi = call.api.split('.').pop()!;
  const base = call.file.split('/').pop()!;
  return {
    api: text.includes(call.api) || text.includes(shortApi),
    package: new RegExp(`(^|[^\\w.-])${escapeRegExp(call.package)}([^\\w.-]|$)`).test(text),
    fileLine: text.includes(`${call.file}:${call.line}`) || text.includes(`${base}:${call.line}`),
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function scoreRaw(raw: RawRuns, truth: Truth): Row['raw'] {
  const baseDiff = firstDifferingLine(raw.base[0], raw.base[1]);
  const headDiff = firstDifferingLine(raw.head[0], raw.head[1]);
  const verdict = baseDiff ? 'already' : headDiff ? 'flagged' : 'quiet';
  const diff = headDiff ?? firstDifferingLine(raw.base[0], raw.head[0]);
  const firstLine = diff ? `${diff.line}: ${diff.b}` : null;
  return { verdict, firstLine, names: firstLine ? namesIn(firstLine, truth.firstCall) : NONE, ms: raw.ms };
}

export function scoreDetdrift(run: DetdriftRun, truth: Truth): Row['detdrift'] {
  const report = run.report;
  const verdict = report?.bump?.verdict ?? (run.error ? `error (exit ${run.exitCode})` : 'no report');
  const cause = report?.cause ?? null;
  const flagged = (verdict === 'changed' || verdict === 'made-nondeterministic') && cause?.kind === 'call';
  const site = cause?.site ? `${cause.site.file}:${cause.site.line}` : null;
  const described = cause ? [cause.api ?? cause.kind, site ?? cause.package].filter(Boolean).join(' at ') : null;
  const call = truth.firstCall;
  const names: Localization =
    cause && call
      ? {
          api: cause.api === call.api,
          // the version too: a call in base's copy of the package is not the call head added
          package: cause.package === `${call.package}@${call.version}`,
          fileLine:
            cause.site !== null &&
            cause.site.line === call.line &&
            cause.site.file === `${call.package}@${call.version}/${call.file}`,
        }
      : NONE;
  return { verdict, flagged, cause: described, names, ms: run.ms };
}

function outcome(flagged: boolean, changed: boolean): Outcome {
  if (changed) return flagged ? 'detected' : 'missed';
  return flagged ? 'false alarm' : 'quiet';
}

export function scoreUpgrade(upgrade: string, truth: Truth, raw: RawRuns, detdrift: DetdriftRun): Row {
  const rawRow = scoreRaw(raw, truth);
  const detdriftRow = scoreDetdrift(detdrift, truth);
  return {
    upgrade,
    changed: truth.changed,
    raw: rawRow,
    detdrift: detdriftRow,
    outcome: {
      raw: outcome(rawRow.verdict === 'flagged', truth.changed),
      detdrift: outcome(detdriftRow.flagged, truth.changed),
    },
  };
}

function marks(names: Localization): string {
  return (
    [names.api ? 'API' : '', names.package ? 'pkg' : '', names.fileLine ? 'file:line' : '']
      .filter(Boolean)
      .join(', ') || '—'
  );
}

/** A Markdown cell: pipes escaped, newlines and long text cut. */
export function cell(text: string | null, max = 70): string {
  if (text === null || text === '') return '—';
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return `\`${cut.replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** One harness's rows as a Markdown table. */
export function renderTable(rows: readonly Row[], where: string): string {
  const head =
    '| upgrade | truth | raw log | raw: first differing line | raw names | detdrift bump | detdrift cause | detdrift names | raw time | detdrift time | where |';
  const rule = '|---|---|---|---|---|---|---|---|---|---|---|';
  const lines = rows.map((row) =>
    [
      '',
      row.upgrade,
      row.changed ? 'changed' : 'unchanged',
      `${row.raw.verdict}: **${row.outcome.raw}**`,
      cell(row.raw.firstLine),
      marks(row.raw.names),
      `${row.detdrift.verdict}: **${row.outcome.detdrift}**`,
      cell(row.detdrift.cause),
      marks(row.detdrift.names),
      seconds(row.raw.ms),
      seconds(row.detdrift.ms),
      where,
      '',
    ]
      .join(' | ')
      .trim(),
  );
  return [head, rule, ...lines].join('\n');
}

/** Counts over rows: detections, misses, false alarms and full localizations per method. */
export function summarize(rows: readonly Row[]): {
  changed: number;
  unchanged: number;
  raw: Record<Outcome, number> & { localized: number };
  detdrift: Record<Outcome, number> & { localized: number };
} {
  const count = (method: 'raw' | 'detdrift') => {
    const tally = { detected: 0, missed: 0, 'false alarm': 0, quiet: 0, localized: 0 };
    for (const row of rows) {
      tally[row.outcome[method]]++;
      const names = row[method].names;
      if (row.changed && names.api && names.package && names.fileLine) tally.localized++;
    }
    return tally;
  };
  return {
    changed: rows.filter((row) => row.changed).length,
    unchanged: rows.filter((row) => !row.changed).length,
    raw: count('raw'),
    detdrift: count('detdrift'),
  };
}
