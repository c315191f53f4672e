/**
 * One form of a report, drawn from the report and a context taken once from the project and the
 * environment. Every form is a pure function of the two: no disk, no environment read here.
 */
import { renderComment } from './comment.js';
import type { ReportFormat } from './formats.js';
import { relayUntrusted, renderGithub } from './github.js';
import { renderHtml } from './html.js';
import { renderJson } from './json.js';
import { renderSarif } from './sarif.js';
import { renderSummary } from './summary.js';
import { renderTerminal } from './terminal.js';
import type { Report } from './types.js';
import { inertData } from './untrusted.js';

/**
 * What the renderers need besides the report, taken from the project and the environment once
 * (cli/shared/output.ts).
 */
export interface RenderContext {
  readonly color: boolean;
  readonly width: number;
  /** the project's folder inside the repository checkout ($GITHUB_WORKSPACE), prefixed to annotation and SARIF paths */
  readonly pathPrefix: string;
  /** the line of each direct dependency in the project's package.json (diffing/findings/manifest.ts) */
  readonly dependencyLines: ReadonlyMap<string, number>;
  /** inside GitHub Actions, whose runner reads workflow commands in everything a step prints */
  readonly actions: boolean;
  /** detdrift's version, which SARIF names its tool with */
  readonly toolVersion: string;
  /** `--verbose`: the terminal shows where source maps moved each frame from */
  readonly verbose: boolean;
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
      return renderTerminal(shown, { color: context.color, width: context.width, verbose: context.verbose });
    case 'github':
      return renderGithub(shown, paths(context));
    case 'summary':
      return renderSummary(shown);
    case 'comment':
      return renderComment(shown);
    case 'sarif':
      return renderSarif(shown, { toolVersion: context.toolVersion, ...paths(context) });
    case 'html':
      return renderHtml(shown);
  }
}

/** Where annotations and SARIF results point: the project's folder and its package.json lines. */
function paths({ pathPrefix, dependencyLines }: RenderContext) {
  return { pathPrefix, dependencyLine: (name: string) => dependencyLines.get(name) ?? null };
}

/**
 * The terminal form relays trace strings as they are: inside GitHub Actions, where the runner reads
 * workflow commands in the log, it is fenced with stop-commands; elsewhere nothing reads them, and
 * a fence is noise. The other forms escape those strings themselves.
 */
export function forLog(text: string, format: ReportFormat, context: RenderContext): string {
  return format === 'terminal' && context.actions ? relayUntrusted(text) : text;
}

/**
 * Whether what goes to `stream` is coloured: FORCE_COLOR turns colours on (`0` or `false` off)
 * whatever else is set, as in Node's own output; else a non-empty NO_COLOR turns them off; else
 * they are on for a terminal only (not TERM=dumb): never in a pipe or a file.
 */
export function colorEnabled(stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}
