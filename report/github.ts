/**
 * GitHub workflow commands: an `::error` annotation at the first uncontrolled call, where the
 * reviewer sees it (the first frame in the project's own code, and the bumped dependency's line in
 * package.json), and one `::notice` that sums up the rest. GitHub shows at most 10 annotations of
 * each type per step and 50 per job; this renderer writes at most 2 errors and 1 notice.
 *
 * Every string from a trace is escaped: a dependency is untrusted input, and must not forge, hide
 * or inject annotations, masks, outputs or environment changes.
 */
import { randomUUID } from 'node:crypto';
import {
  describeMatched,
  changedCounts,
  describeBump,
  describeChangedCode,
  describeConfidence,
  describeContexts,
  describeCulprit,
  describeDivergence,
  describeFrame,
  describeStackNote,
  diskPath,
  manifestDependency,
  projectFrame,
  repositoryPath,
  sameFrame,
} from './describe.js';
import { runNames } from './text.js';
import type { CauseView, FrameView, Report } from './types.js';

export interface GithubOptions {
  /** the project's folder relative to the repository root, prefixed to every file path ('' when they are the same) */
  readonly pathPrefix?: string;
  /** the 1-based line of a direct dependency in the project's package.json; null when it is not one */
  readonly dependencyLine?: (name: string) => number | null;
}

interface Annotation {
  readonly type: 'error' | 'notice';
  readonly file?: string;
  readonly line?: number;
  readonly col?: number;
  readonly title: string;
  readonly message: readonly string[];
}

/** The workflow commands for a report, one per line, newline-terminated. */
export function renderGithub(report: Report, options: GithubOptions = {}): string {
  return annotations(report, options).map(command).join('');
}

function annotations(report: Report, options: GithubOptions): Annotation[] {
  if (report.verdict === 'agree') {
    return [
      {
        type: 'notice',
        title: 'detdrift',
        message: [`the runs agree: ${describeMatched(report)}`],
      },
    ];
  }
  const cause = report.cause;
  const prefix = options.pathPrefix ?? '';
  const title = describeCulprit(cause);
  const here = projectFrame(report);
  const out: Annotation[] = [
    {
      type: 'error',
      ...at(here, prefix),
      title,
      message: [lead(report, cause, here), ...details(report, cause, here)],
    },
  ];
  const bump = cause?.bump;
  const line = bump ? (options.dependencyLine?.(manifestDependency(bump)) ?? null) : null;
  if (bump && line !== null) {
    const message = [
      `detdrift: this change (${describeBump(bump)}) makes seeded runs diverge: ${title}.`,
      ...details(report, cause, null, false),
    ];
    out.push({ type: 'error', file: repositoryPath('package.json', prefix), line, title, message });
  }
  out.push({ type: 'notice', title: 'detdrift summary', message: rest(report) });
  return out;
}

function lead(report: Report, cause: CauseView | null, here: FrameView | null): string {
  if (!cause)
    return `detdrift: the runs diverge${report.firstDivergence ? `: ${describeDivergence(report.firstDivergence, runNames(report))}` : ''}.`;
  if (cause.kind === 'ordering')
    return `detdrift: the runs diverge: ${describeContexts(cause.contexts ?? [])} finished in a different order.`;
  if (cause.kind === 'outside')
    return `detdrift: the runs diverge, and no intercepted call explains it: ${cause.bump ? describeChangedCode(cause.bump) : cause.rule}.`;
  const where = cause.package ? ` in ${cause.package}` : '';
  const reached = here && !sameFrame(here, cause.site) ? `, reached from here${here.fn ? ` (${here.fn})` : ''}` : '';
  return `detdrift: the runs diverge at an uncontrolled ${cause.api ?? '?'} call${where}${reached}.`;
}

/** The lines under the lead: call site (its node_modules path), version change, why, replay. */
function details(report: Report, cause: CauseView | null, here: FrameView | null, bump = true): string[] {
  const out: string[] = [];
  const names = runNames(report);
  if (cause?.site)
    out.push(
      `call site: ${diskPath(cause.site)}:${cause.site.line}:${cause.site.column}${cause.site.fn ? ` (${cause.site.fn})` : ''}`,
    );
  const stackNote = cause ? describeStackNote(cause) : null;
  if (stackNote) out.push(`${cause?.site ? 'its stack' : 'call site'}: ${stackNote}`);
  if (cause?.firstPartySite && here === null) out.push(`reached from: ${describeFrame(cause.firstPartySite)}`);
  if (cause?.bump && bump) out.push(`dependency: ${describeBump(cause.bump)}`);
  if (cause && cause.kind !== 'outside') out.push(`why: ${cause.rule} (${describeConfidence(cause.confidence)})`);
  if (!cause && report.firstDivergence)
    out.push(`first divergence: ${describeDivergence(report.firstDivergence, names)}`);
  const replay = report.replay ?? report.replayNote;
  if (replay) out.push(`replay ${names.a} locally: ${replay}`);
  return out;
}

/** The counts behind the cause: how the runs part, which APIs' call counts changed, other processes. */
function rest(report: Report): string[] {
  const out: string[] = [];
  const names = runNames(report);
  if (report.firstDivergence)
    out.push(
      `first divergence: ${describeDivergence(report.firstDivergence, names)} (process ${report.firstDivergence.process})`,
    );
  const changed = changedCounts(report);
  if (changed.length > 0)
    out.push(
      `calls per API that differ (${names.a} → ${names.b}): ${changed.slice(0, 10).join(', ')}${changed.length > 10 ? `, and ${changed.length - 10} more` : ''}`,
    );
  const processes = report.differences.processes;
  out.push(
    `${processes.filter((entry) => entry.verdict === 'diverge').length} of ${processes.length} processes diverge`,
  );
  out.push(`${report.differences.uncontrolledValues} matched calls have uncontrolled values that differ`);
  if (report.confirmation)
    out.push(`replay confirmation: ${report.confirmation.status} after ${report.confirmation.runs} re-runs`);
  return out;
}

function at(frame: FrameView | null, prefix: string): Pick<Annotation, 'file' | 'line' | 'col'> {
  return frame ? { file: repositoryPath(frame.file, prefix), line: frame.line, col: frame.column } : {};
}

function command(annotation: Annotation): string {
  const properties: string[] = [];
  if (annotation.file !== undefined) properties.push(`file=${escapeProperty(annotation.file)}`);
  if (annotation.line !== undefined) properties.push(`line=${escapeProperty(String(annotation.line))}`);
  if (annotation.col !== undefined) properties.push(`col=${escapeProperty(String(annotation.col))}`);
  properties.push(`title=${escapeProperty(annotation.title)}`);
  return `::${annotation.type} ${properties.join(',')}::${escapeData(annotation.message.join('\n'))}\n`;
}

/** A workflow command's data: `%`, CR and LF escaped, so it stays on its own line. */
export function escapeData(text: string): string {
  return String(text).replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
}

/** A workflow command's property: as data, plus `:` and `,`, which end a property. */
export function escapeProperty(text: string): string {
  return escapeData(text).replaceAll(':', '%3A').replaceAll(',', '%2C');
}

/**
 * Text that relays untrusted strings (the terminal report, a program's output), fenced so the
 * runner reads no command in it: `::stop-commands::TOKEN` … `::TOKEN::`. The token is random, so
 * the text cannot end the fence early.
 */
export function relayUntrusted(text: string, token: string = randomUUID()): string {
  if (text.includes(token)) throw new Error('the stop-commands token occurs in the text it fences');
  const body = text === '' || text.endsWith('\n') ? text : text + '\n';
  return `::stop-commands::${token}\n${body}::${token}::\n`;
}
