import { randomUUID } from 'node:crypto';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { Comparison } from '../../diffing/compare.js';
import { buildReport, type BuildOptions } from '../../diffing/findings/build.js';
import { manifestLines } from '../../diffing/findings/manifest.js';
import { colorEnabled, forLog, render, type RenderContext } from '../../report/render.js';
import type { Report } from '../../report/types.js';
import { CliError, verdictStatus } from './errors.js';
import type { ReportTarget } from './report-options.js';
import { MANIFEST } from './package.js';

/**
 * Lines for stdout, written in batches and with back-pressure: a trace of millions of events must
 * not pile up in memory when stdout is a slow pipe. A reader that goes away (`detdrift show t |
 * head`) ends the output quietly instead of crashing on EPIPE.
 */
export class LineOutput {
  /** true once the reader closed the pipe: stop producing lines */
  closed = false;
  private buffer = '';
  private failure: Error | null = null;
  private readonly stream: NodeJS.WritableStream;

  constructor(stream: NodeJS.WritableStream) {
    this.stream = stream;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') this.closed = true;
      else this.failure = error;
    });
  }

  /** Queues one line; true when the batch is due for `flush()`. */
  line(text: string): boolean {
    this.buffer += text + '\n';
    return this.buffer.length >= BATCH;
  }

  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed || this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    if (this.stream.write(text)) return;
    await new Promise<void>((resolve) => {
      // An error or close instead of drain also ends the wait; the listener above records why.
      const done = () => {
        this.stream.off('drain', done).off('error', done).off('close', done);
        resolve();
      };
      this.stream.once('drain', done).once('error', done).once('close', done);
    });
    if (this.failure) throw this.failure;
  }
}

const BATCH = 1 << 16;

/**
 * Builds the report, prints it (JSON, or text with colors on a terminal), writes the `--report`
 * forms, and gives the exit status. Annotations without a file follow the report on stdout, or go
 * to stderr under --json, which keeps stdout one JSON document (the runner reads both streams).
 */
/** How the report is printed: JSON or text, and with `--verbose`'s detail. */
export interface PrintForm {
  readonly json: boolean;
  readonly verbose?: boolean;
}

export async function emitReport(
  comparison: Comparison,
  root: string,
  form: PrintForm,
  extra: Omit<BuildOptions, 'root'> & { reports?: readonly ReportTarget[] } = {},
): Promise<{ report: Report; status: number }> {
  const { reports: targets = [], ...options } = extra;
  const report = buildReport(comparison, { root, ...options });
  return { report, status: await printReport(report, root, form, targets) };
}

/**
 * Prints a report that is built already (`merge` combines them) and writes its `--report` forms, as
 * emitReport does.
 */
export async function printReport(
  report: Report,
  root: string,
  { json, verbose = false }: PrintForm,
  targets: readonly ReportTarget[],
): Promise<number> {
  const context = { ...renderContext(root), verbose };
  const annotations = targets.filter((target) => target.format === 'github' && target.file === null);
  const output = new LineOutput(process.stdout);
  output.line(
    forLog(render(report, json ? 'json' : 'terminal', context), json ? 'json' : 'terminal', context).trimEnd(),
  );
  if (!json && annotations.length > 0) output.line(render(report, 'github', context).trimEnd());
  await output.flush();
  if (json && annotations.length > 0) process.stderr.write(render(report, 'github', context));
  for (const target of targets)
    if (target.file !== null) writeReportFile(target.file, render(report, target.format, context), target.append);
  return verdictStatus(report.verdict);
}

/** What the renderers need besides the report, from the project at `root` and the environment. */
export function renderContext(root: string, env: NodeJS.ProcessEnv = process.env): RenderContext {
  const workspace = env.GITHUB_WORKSPACE;
  const inside = workspace ? relative(workspace, root) : '';
  return {
    color: colorEnabled(process.stdout, env),
    width: process.stdout.columns ?? 100,
    pathPrefix: inside.startsWith('..') || isAbsolute(inside) ? '' : inside.split(sep).join('/'),
    dependencyLines: manifestLines(root),
    actions: env.GITHUB_ACTIONS === 'true',
    toolVersion: MANIFEST.version,
    verbose: false,
  };
}

/**
 * Runs `write`, which relays a program's own output to stderr, fenced from the runner inside
 * GitHub Actions so that output cannot issue workflow commands.
 */
export function fencingCommands(write: () => void, env: NodeJS.ProcessEnv = process.env): void {
  if (env.GITHUB_ACTIONS !== 'true') {
    write();
    return;
  }
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
