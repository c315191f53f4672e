import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { Comparison } from '../diffing/compare.js';
import { buildReport, type BuildOptions } from '../report/build.js';
import { renderComment } from '../report/comment.js';
import { relayUntrusted, renderGithub } from '../report/github.js';
import { renderHtml } from '../report/html.js';
import { renderJson } from '../report/json.js';
import { manifestLines } from '../report/manifest-line.js';
import { renderSarif } from '../report/sarif.js';
import { renderSummary } from '../report/summary.js';
import { renderTerminal } from '../report/terminal.js';
import type { Report } from '../report/types.js';
import { inertData } from '../report/untrusted.js';
import type { ReportFormat } from './defaults.js';
import { CliError, ExitStatus } from './errors.js';
import type { ReportTarget } from './options.js';
import { LineOutput } from './output.js';
import { MANIFEST } from './package.js';

/** Exit statuses of the comparing commands (cli/errors.ts): the runs agree, or they diverge. */
export const AGREE = ExitStatus.ok;
export const DIVERGE = ExitStatus.divergence;

/**
 * Builds the report, prints it (JSON, or text with colors on a terminal), writes the `--report`
 * forms, and gives the exit status. Annotations without a file follow the report on stdout, or go
 * to stderr under --json, which keeps stdout one JSON document (the runner reads both streams).
 */
export async function emitReport(
  comparison: Comparison,
  root: string,
  json: boolean,
  extra: Omit<BuildOptions, 'root'> & { reports?: readonly ReportTarget[] } = {},
): Promise<{ report: Report; status: number }> {
  const { reports: targets = [], ...options } = extra;
  const report = buildReport(comparison, { root, ...options });
  return { report, status: await printReport(report, root, json, targets) };
}

/** Prints a report that is built already (`merge` combines them) and writes its `--report` forms, as emitReport does. */
export async function printReport(report: Report, root: string, json: boolean, targets: readonly ReportTarget[]): Promise<number> {
  const context = renderContext(root);
  const annotations = targets.filter((target) => target.format === 'github' && target.file === null);
  const output = new LineOutput(process.stdout);
  output.line(forLog(render(report, json ? 'json' : 'terminal', context), json ? 'json' : 'terminal', context, annotations.length > 0).trimEnd());
  if (!json && annotations.length > 0) output.line(render(report, 'github', context).trimEnd());
  await output.flush();
  if (json && annotations.length > 0) process.stderr.write(render(report, 'github', context));
  for (const target of targets) if (target.file !== null) writeReportFile(target.file, render(report, target.format, context), target.append);
  return report.verdict === 'agree' ? AGREE : DIVERGE;
}

/** What the renderers need besides the report, taken from the project and the environment once. */
export interface RenderContext {
  readonly color: boolean;
  readonly width: number;
  /** the project's folder inside the repository checkout ($GITHUB_WORKSPACE), prefixed to annotation and SARIF paths */
  readonly pathPrefix: string;
  readonly dependencyLine: (name: string) => number | null;
  /** inside GitHub Actions, whose runner reads workflow commands in everything a step prints */
  readonly actions: boolean;
}

export function renderContext(root: string, env: NodeJS.ProcessEnv = process.env): RenderContext {
  const workspace = env.GITHUB_WORKSPACE;
  const inside = workspace ? relative(workspace, root) : '';
  return {
    color: colorEnabled(process.stdout, env),
    width: process.stdout.columns ?? 100,
    pathPrefix: inside.startsWith('..') || isAbsolute(inside) ? '' : inside.split(sep).join('/'),
    dependencyLine: manifestLines(root),
    actions: env.GITHUB_ACTIONS === 'true',
  };
}

/**
 * Whether what goes to `stream` is coloured: FORCE_COLOR turns colours on (`0` or `false` off)
 * whatever else is set, as in Node's own output; else a non-empty NO_COLOR turns them off; else
 * they are on for a terminal only (not TERM=dumb): never in a pipe or a file.
 */
export function colorEnabled(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/**
 * One form of the report. Every form but JSON is handed the report `inertData` (untrusted.ts):
 * each string from a trace or a package shown so it cannot break a line, drive a terminal or issue
 * a workflow command. JSON keeps every string exact, the unsafe characters written as escapes.
 */
export function render(report: Report, format: ReportFormat, context: RenderContext): string {
  if (format === 'json') return renderJson(report);
  const shown = inertData(report);
  switch (format) {
    case 'terminal':
      return renderTerminal(shown, { color: context.color, width: context.width });
    case 'github':
      return renderGithub(shown, paths(context));
    case 'summary':
      return renderSummary(shown);
    case 'comment':
      return renderComment(shown);
    case 'sarif':
      return renderSarif(shown, { toolVersion: MANIFEST.version, ...paths(context) });
    case 'html':
      return renderHtml(shown);
  }
}

/** Where annotations and SARIF results point: the project's folder and its package.json lines. */
function paths({ pathPrefix, dependencyLine }: RenderContext) {
  return { pathPrefix, dependencyLine };
}

/**
 * The terminal form relays trace strings as they are: inside GitHub Actions, or when annotations
 * follow it, it is fenced with stop-commands. The other forms escape those strings themselves.
 */
export function forLog(text: string, format: ReportFormat, context: RenderContext, annotating = false): string {
  return format === 'terminal' && (context.actions || annotating) ? relayUntrusted(text) : text;
}

/**
 * Runs `write`, which relays a program's own output to stderr, fenced from the runner inside
 * GitHub Actions so that output cannot issue workflow commands.
 */
export function fencingCommands(write: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.GITHUB_ACTIONS !== 'true') return write();
  const token = randomUUID();
  process.stderr.write(`::stop-commands::${token}\n`);
  try {
    write();
  } finally {
    process.stderr.write(`::${token}::\n`);
  }
}

export function writeReportFile(file: string, text: string, append: boolean): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    if (append) appendFileSync(file, text);
    else writeFileSync(file, text);
  } catch (error) {
    throw new CliError('ERR_REPORT_FILE', `cannot write ${file}: ${(error as Error).message}`, { cause: error });
  }
}
