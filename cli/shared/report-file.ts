/**
 * A report that `--json` or `--report json` saved, read back and checked: `report` renders one, `merge`
 * combines them.
 */
import { readFileSync, statSync } from 'node:fs';
import { REPORT_SCHEMA, type Report } from '../../report/types.js';
import { CliError } from './errors.js';
import { SEED_TEXT } from './seeds.js';

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
