import type { Frame, SiteDef, TraceHeader } from './format.js';

/**
 * The shape checks of what a trace file holds as JSON: its header and its call site definitions.
 * A trace is untrusted input (a CI artifact, a file from another machine): every field the CLI,
 * the comparison and the reports read is checked here once, so none of them meets a `command`
 * that is not a list or a frame whose `line` is an object. Each check returns what it expected,
 * or null when the value is fine.
 */

type Check = (value: unknown) => boolean;

const isString: Check = (value) => typeof value === 'string';
const isNumber: Check = (value) => typeof value === 'number';
const orNull =
  (check: Check): Check =>
  (value) =>
    value === null || check(value);
const optional =
  (check: Check): Check =>
  (value) =>
    value === undefined || check(value);
const isPair: Check = (value) => Array.isArray(value) && value.length === 2 && value.every(isNumber);
const listOf =
  (check: Check, max = Infinity): Check =>
  (value) =>
    Array.isArray(value) && value.length <= max && value.every(check);
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const shaped =
  (fields: Record<string, Check>): Check =>
  (value) =>
    isObject(value) && Object.entries(fields).every(([key, check]) => check(value[key]));

/** The header fields, each with what it must be, in the words of the error message. */
const HEADER: ReadonlyArray<readonly [keyof TraceHeader, Check, string]> = [
  ['version', isNumber, 'a number'],
  ['tool', shaped({ name: isString, version: isString }), '{ name, version } strings'],
  ['node', isString, 'a string'],
  ['platform', isString, 'a string'],
  ['arch', isString, 'a string'],
  ['mode', isString, 'a string'],
  ['seed', orNull(isString), 'a string or null'],
  ['command', listOf(isString), 'a list of strings'],
  ['lineage', isString, 'a string'],
  ['root', shaped({ name: orNull(isString), version: orNull(isString) }), '{ name, version }, each a string or null'],
  ['lockfile', orNull(shaped({ file: isString, sha256: isString })), 'null or { file, sha256 } strings'],
  [
    'apis',
    listOf(shaped({ api: isString, form: isString, family: isString }), 0xf0),
    'a table of at most 240 { api, form, family } rows',
  ],
  [
    'sites',
    shaped({ first: isNumber, every: isNumber, doubling: optional(isNumber), at: optional(listOf(isPair)) }),
    '{ first, every, doubling? } numbers and at?, a list of [api, ordinal]',
  ],
  ['holds', listOf(isString), 'a list of strings'],
];

const PERTURB = listOf(shaped({ dimension: isString, variant: isString, detail: isString }));

/** What is wrong with a parsed header, as "expected ...", or null. */
export function headerProblem(header: unknown): string | null {
  if (!isObject(header)) return 'a header object';
  for (const [key, check, expected] of HEADER) {
    if (!check(header[key])) return `a header whose "${key}" is ${expected}`;
  }
  if (header.perturb !== undefined && !PERTURB(header.perturb))
    return 'a header whose "perturb" is a list of { dimension, variant, detail } strings';
  return null;
}

const FRAME = shaped({
  file: isString,
  line: isNumber,
  column: isNumber,
  fn: orNull(isString),
  package: orNull(isString),
});

/**
 * A call site definition as the rest of the tool may use it: exactly the known fields, so nothing
 * else a file carries (a deeply nested extra key, say) travels on into reports. Null when the
 * definition is not one.
 */
export function toSiteDef(value: unknown): SiteDef | null {
  if (!isObject(value) || !isNumber(value.skipped) || !Array.isArray(value.frames) || !value.frames.every(FRAME))
    return null;
  const frames = (value.frames as Frame[]).map(({ file, line, column, fn, package: pkg }) => ({
    file,
    line,
    column,
    fn,
    package: pkg,
  }));
  return { frames, skipped: value.skipped as number };
}
