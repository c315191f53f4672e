import { readFileSync, statSync } from 'node:fs';
import { compare } from '../diffing/compare.js';
import { buildReport } from '../diffing/findings/build.js';
import { REPORT_SCHEMA, type Report } from '../report/types.js';
import type { CommandContext } from './args.js';
import { CliError } from './errors.js';
import type { ReportOptions } from './options.js';
import { findProject } from './project.js';
import { LineOutput, renderContext, writeReportFile } from './output.js';
import { forLog, render } from '../report/render.js';
import { SEED_TEXT } from './seeds.js';
import { assertTraces } from './traces.js';

/**
 * `detdrift report REPORT.json --format F [-o FILE]`: renders a report that `--json` (or
 * `--report json`) wrote, in another form: a later workflow step can annotate, summarize, upload
 * SARIF, comment or publish a page from one saved report. `detdrift report A B` compares two
 * traces first, as `diff --no-confirm` would. Paths in annotations and SARIF are the project's,
 * found from the working directory. Exits 0 once rendered: the verdict is the comparing step's
 * status, not this one's.
 */
export async function run(options: ReportOptions, { logger }: CommandContext): Promise<number> {
  const root = findProject(options.cwd).root;
  const report = options.traces ? compareTraces(options.traces, options.ignore, root) : readReport(options.input);
  const context = renderContext(root);
  logger.debug({ format: options.format, verdict: report.verdict }, 'rendering');
  const text = render(report, options.format, context);
  if (options.out !== null) {
    writeReportFile(options.out, text, false);
    return 0;
  }
  const output = new LineOutput(process.stdout);
  output.line(forLog(text, options.format, context).trimEnd());
  await output.flush();
  return 0;
}

function compareTraces(
  { a, b }: NonNullable<ReportOptions['traces']>,
  ignore: ReportOptions['ignore'],
  root: string,
): Report {
  assertTraces(a, b);
  return buildReport(compare(a, b, { ignore }), { root });
}

/** Reads and checks a saved report: the renderers may then trust its shape and its enumerated fields. */
export function readReport(file: string | null): Report {
  const name = file ?? 'stdin';
  // A device could be read forever (/dev/zero); a pipe is fine: `report <(...)` names one.
  const stats = file === null ? undefined : statSync(file, { throwIfNoEntry: false });
  if (stats?.isCharacterDevice() || stats?.isBlockDevice()) {
    throw new CliError('ERR_REPORT_FILE', `cannot read a report from ${name}: a device, not a file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file ?? 0, 'utf8'));
  } catch (error) {
    throw new CliError('ERR_REPORT_FILE', `cannot read a report from ${name}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const problem = shapeProblem(value);
  if (problem) throw new CliError('ERR_REPORT_FILE', `${name} is not a detdrift report (${REPORT_SCHEMA}): ${problem}`);
  return value as Report;
}

function shapeProblem(value: unknown): string | null {
  if (!isObject(value)) return 'not a JSON object';
  if (value.schema !== REPORT_SCHEMA) return `schema is ${JSON.stringify(value.schema)}`;
  if (value.verdict !== 'agree' && value.verdict !== 'diverge') return `verdict is ${JSON.stringify(value.verdict)}`;
  if (!isObject(value.runs)) return 'runs is not an object';
  for (const key of ['firstDivergence', 'outputDivergence', 'cause', 'ordering', 'confirmation'] as const) {
    if (value[key] !== null && !isObject(value[key])) return `${key} is neither an object nor null`;
  }
  if (!Array.isArray(value.nearby)) return 'nearby is not a list';
  if (value.replay !== null && typeof value.replay !== 'string') return 'replay is neither a string nor null';
  const differences = value.differences;
  if (
    !isObject(differences) ||
    !Array.isArray(differences.processes) ||
    !Array.isArray(differences.perApi) ||
    !Array.isArray(differences.perSite)
  ) {
    return 'differences lacks its processes, perApi and perSite lists';
  }
  const timeline = value.timeline;
  if (timeline !== undefined && timeline !== null) {
    if (
      !isObject(timeline) ||
      !Array.isArray(timeline.ops) ||
      !isObject(timeline.before) ||
      !isObject(timeline.after) ||
      typeof timeline.at !== 'number'
    ) {
      return 'timeline lacks its ops list, before, after or at';
    }
  }
  if (value.seeds !== undefined && value.seeds !== null && !(Array.isArray(value.seeds) && value.seeds.every(isSeed))) {
    return 'seeds is not a list of seeds, each with its seed (42, 0x2a or null), verdict (agree, diverge, not-checked), cause, bump and shard';
  }
  if (value.shard !== undefined && value.shard !== null && !isShard(value.shard))
    return 'shard is not {index, total, seeds} with 1 <= index <= total <= seeds';
  const cause = value.cause;
  if (isObject(cause)) {
    if (!['call', 'ordering', 'outside'].includes(cause.kind as string))
      return `cause.kind is ${JSON.stringify(cause.kind)}`;
    if (cause.run !== 'a' && cause.run !== 'b') return `cause.run is ${JSON.stringify(cause.run)}`;
    if (!Array.isArray(cause.stack)) return 'cause.stack is not a list';
  }
  return null;
}

/** A seed list's entry: its seed as `--seed` takes one (a report from another job is input like any other). */
function isSeed(entry: unknown): boolean {
  return (
    isObject(entry) &&
    (entry.seed === null || (typeof entry.seed === 'string' && SEED_TEXT.test(entry.seed))) &&
    ['agree', 'diverge', 'not-checked'].includes(entry.verdict as string) &&
    (entry.cause === null || typeof entry.cause === 'string') &&
    [null, undefined, 'unchanged', 'changed', 'made-nondeterministic', 'already-nondeterministic'].includes(
      entry.bump as string,
    ) &&
    (entry.shard === null || entry.shard === undefined || Number.isSafeInteger(entry.shard))
  );
}

function isShard(shard: unknown): boolean {
  if (!isObject(shard)) return false;
  const [index, total, seeds] = [shard.index, shard.total, shard.seeds] as number[];
  return [index, total, seeds].every(Number.isSafeInteger) && 1 <= index! && index! <= total! && total! <= seeds!;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
