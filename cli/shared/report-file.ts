/**
 * A report that `--json` or `--report json` saved, read back and checked: `report` renders one, `merge`
 * combines them.
 */
import { closeSync, fstatSync, readFileSync, readSync } from 'node:fs';
import { REPORT_SCHEMA, type Report } from '../../report/types.js';
import { describeOpenError, kindOf, openNoFollow } from '../../tracer/regular-file.js';
import { CliError } from './errors.js';
import { MAX_SEEDS, SEED_TEXT } from './seeds.js';

/**
 * The largest report read, checked before a byte of it is: `check` writes a few kilobytes, and a
 * seed list of 10^5 seeds about 10 MB.
 */
export const REPORT_LIMIT = 64 * 1024 * 1024;

/**
 * Reads and checks a saved report: the renderers may then trust its shape and its enumerated fields.
 * A report can come from a job that ran the dependency under test, so it is data: only a regular
 * file is read, no error quotes its bytes, and its `replay` is dropped (a command string from a file
 * is never offered to run: cli/shared/report-replay.ts makes one from checked fields).
 */
export function readReport(file: string | null): Report {
  const name = file ?? 'stdin';
  const text = file === null ? readFileSync(0, 'utf8') : readRegularFile(file);
  if (text.length > REPORT_LIMIT) throw tooLarge(name, text.length);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8's message quotes the text: only where it stopped is said.
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new CliError('ERR_REPORT_FILE', `${name} is not JSON${at === undefined ? '' : ` (at character ${at})`}`);
  }
  const problem = shapeProblem(value);
  if (problem) throw new CliError('ERR_REPORT_FILE', `${name} is not a detdrift report (${REPORT_SCHEMA}): ${problem}`);
  return { ...(value as Report), replay: null, replayNote: null };
}

/** A report file's text: a regular file, not through a link, its size checked before it is read. */
function readRegularFile(file: string): string {
  let fd: number;
  try {
    fd = openNoFollow(file);
  } catch (error) {
    throw new CliError('ERR_REPORT_FILE', `cannot read a report from ${file}: ${describeOpenError(error)}`);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile())
      throw new CliError('ERR_REPORT_FILE', `cannot read a report from ${file}: ${kindOf(stats)}, not a file`);
    if (stats.size > REPORT_LIMIT) throw tooLarge(file, stats.size);
    const bytes = Buffer.alloc(stats.size);
    let done = 0;
    // Bytes appended after the fstat are not read: the size checked is the size read.
    try {
      for (let count = 1; done < bytes.length && count > 0; done += count)
        count = readSync(fd, bytes, done, bytes.length - done, done);
    } catch (error) {
      throw new CliError('ERR_REPORT_FILE', `cannot read a report from ${file}: ${describeOpenError(error)}`);
    }
    return bytes.toString('utf8', 0, done);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(name: string, size: number): CliError {
  return new CliError(
    'ERR_REPORT_FILE',
    `${name} is ${size} bytes, more than a report may have (${REPORT_LIMIT}): not a report detdrift wrote`,
  );
}

function shapeProblem(value: unknown): string | null {
  if (!isObject(value)) return 'not a JSON object';
  if (value.schema !== REPORT_SCHEMA)
    return `schema is ${/^detdrift\.report\/\d+$/.test(String(value.schema)) ? value.schema : kind(value.schema)}`;
  if (value.verdict !== 'agree' && value.verdict !== 'diverge') return `verdict is ${kind(value.verdict)}`;
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
    return `shard is not {index, total, seeds} with 1 <= index <= total <= seeds <= ${MAX_SEEDS}`;
  for (const [path, allowed] of ENUMERATED) {
    const problem = fieldProblem(value, path.split('.'), (field) => allowed.includes(field), allowed.join(', '));
    if (problem) return problem;
  }
  for (const path of COUNTS) {
    const problem = fieldProblem(value, path.split('.'), isCount, 'a count');
    if (problem) return problem;
  }
  if (value.next !== undefined && !(Array.isArray(value.next) && value.next.every(isNextStep)))
    return 'next is not a list of next steps, each of a kind a renderer phrases, with its fields';
  const own = isObject(value.bump) ? value.bump.ownChanges : null;
  if (own !== undefined && own !== null && !(isObject(own) && isStrings(own.files) && isCount(own.uncommitted)))
    return 'bump.ownChanges is not {files, uncommitted}';
  const cause = value.cause;
  if (isObject(cause)) {
    if (!['call', 'ordering', 'outside'].includes(cause.kind as string)) return `cause.kind is ${kind(cause.kind)}`;
    if (cause.run !== 'a' && cause.run !== 'b') return `cause.run is ${kind(cause.run)}`;
    if (!Array.isArray(cause.stack)) return 'cause.stack is not a list';
  }
  return null;
}

/**
 * The fields a renderer looks up in a table or writes as a number, by path (`*`: each item of a
 * list); a field under one that is null or absent is not there to check.
 */
const ENUMERATED: ReadonlyArray<readonly [string, readonly unknown[]]> = [
  ['firstDivergence.reason', ['value', 'structure', 'output', 'missing']],
  ['outputDivergence.reason', ['value', 'structure', 'output', 'missing']],
  ['cause.confidence', ['heuristic', 'replay-confirmed']],
  ['cause.stackNote.status', ['replayed', 'not-sampled', 'not-reproduced']],
  ['confirmation.status', ['confirmed', 'outside', 'not-reproduced', 'unstable']],
  ['bump.verdict', ['unchanged', 'changed', 'made-nondeterministic', 'already-nondeterministic']],
  ['timeline.ops.*.kind', ['equal', 'changed', 'removed', 'inserted']],
  ['tests.first.differs', ['missing', 'outcome', 'output', 'calls']],
  ['differences.processes.*.verdict', ['agree', 'diverge']],
  ['perturbation.tried.*.verdict', ['agree', 'diverge']],
  ['warmup.found', ['command', 'traces', 'option']],
];
const isStrings = (field: unknown) => Array.isArray(field) && field.every((item) => typeof item === 'string');
const isSite = (field: unknown) =>
  field === null || (isObject(field) && typeof field.file === 'string' && isCount(field.line) && isCount(field.column));

/** A next step (report.next) as describeNextStep phrases it: its kind, and the fields that kind reads. */
function isNextStep(step: unknown): boolean {
  if (!isObject(step)) return false;
  switch (step.kind) {
    case 'control-mode':
      return typeof step.api === 'string' && (step.job === 'check' || step.job === 'bump');
    case 'seed-in-code':
      return (
        typeof step.api === 'string' && (step.package === null || typeof step.package === 'string') && isSite(step.site)
      );
    case 'fix-in-code':
      return typeof step.api === 'string' && isSite(step.site);
    case 'own-code-changed':
      return isStrings(step.files) && isCount(step.uncommitted);
    case 'outside':
      return true;
    default:
      return false;
  }
}

const COUNTS = [
  'firstDivergence.index.a',
  'firstDivergence.index.b',
  'outputDivergence.index.a',
  'outputDivergence.index.b',
  'confirmation.total',
  'confirmation.runs',
  'differences.perApi.*.a',
  'differences.perApi.*.b',
  'differences.perSite.*.a',
  'differences.perSite.*.b',
  'failure.statuses.*',
  'differences.matched.processes',
  'differences.matched.calls',
  'differences.matched.outputs',
];

/** What is wrong with the field at `path` below `value`, or null: it passes `test`, or is not there to check. */
function fieldProblem(value: unknown, path: readonly string[], test: (field: unknown) => boolean, expected: string) {
  const walk = (at: unknown, depth: number, where: string): string | null => {
    if (depth === path.length) return test(at) ? null : `${where} is ${kind(at)}; expected ${expected}`;
    if (at === null || at === undefined) return null;
    if (path[depth] !== '*')
      return walk((at as Record<string, unknown>)[path[depth]!], depth + 1, join(where, path[depth]!));
    if (!Array.isArray(at)) return `${where} is not a list`;
    for (const [index, item] of at.entries()) {
      const problem = walk(item, depth + 1, `${where}[${index}]`);
      if (problem) return problem;
    }
    return null;
  };
  return walk(value, 0, '');
}

const join = (where: string, key: string) => (where === '' ? key : `${where}.${key}`);

/** What a field that is wrong is, in words: its value is the file's, and no error quotes a file. */
function kind(field: unknown): string {
  if (field === undefined) return 'missing';
  if (field === null || typeof field === 'number' || typeof field === 'boolean') return String(field);
  if (typeof field === 'string') return 'another string';
  return Array.isArray(field) ? 'a list' : `of type ${typeof field}`;
}

const isCount = (field: unknown) => Number.isSafeInteger(field);

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
  return (
    [index, total, seeds].every(Number.isSafeInteger) &&
    1 <= index! &&
    index! <= total! &&
    total! <= seeds! &&
    seeds! <= MAX_SEEDS
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
