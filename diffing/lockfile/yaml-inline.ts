/**
 * The parts of a YAML line: quoted and plain scalars, keys, and flow collections (`{a: b}`,
 * `[x, y]`). Every scanner moves forward only, so the work is linear in the line; a flow
 * collection must close on its own line (pnpm and yarn write them that way).
 */
import { excerpt } from './errors.js';
import type { YamlMap, YamlValue } from './yaml.js';

/** Throws the coded error at a column of the current line. */
export type Fail = (column: number, reason: string) => never;

export interface Scanned<T> {
  readonly value: T;
  /** the offset just after what was scanned */
  readonly end: number;
}

export const MAX_DEPTH = 64;

/** A mapping key at `pos`, up to and including its colon; null when the text is no `key:`. */
export function scanKey(text: string, pos: number, fail: Fail): Scanned<string> | null {
  const c = text[pos];
  if (c === '"' || c === "'") {
    const quoted = scanQuoted(text, pos, fail);
    const colon = skipSpace(text, quoted.end);
    return text[colon] === ':' && isBreak(text, colon + 1) ? { value: quoted.value, end: colon + 1 } : null;
  }
  if (c === undefined || c === '[' || c === '{' || c === '#' || (c === '-' && isBreak(text, pos + 1))) return null;
  for (let i = pos; i < text.length; i++) {
    if (text[i] === ':' && isBreak(text, i + 1)) return { value: text.slice(pos, i).trimEnd(), end: i + 1 };
    if (text[i] === '#' && isSpace(text[i - 1])) return null;
  }
  return null;
}

/** A value that fits on the rest of its line: quoted, flow collection, or plain. */
export function scanInline(text: string, pos: number, fail: Fail): Scanned<YamlValue> {
  const c = text[pos]!;
  if (c === '"' || c === "'") return scanQuoted(text, pos, fail);
  if (c === '[' || c === '{') return scanFlow(text, pos, 0, fail);
  if ('&*!%@`'.includes(c)) fail(pos, `${JSON.stringify(c)} (anchors, aliases, tags, directives) is not supported in a lockfile`);
  let end = text.length;
  for (let i = pos; i < text.length; i++) {
    if (text[i] === '#' && isSpace(text[i - 1])) {
      end = i;
      break;
    }
    if (text[i] === ':' && isBreak(text, i + 1)) fail(i, 'a mapping value is not allowed here (quote the value?)');
  }
  return { value: text.slice(pos, end).trimEnd(), end };
}

export function scanQuoted(text: string, pos: number, fail: Fail): Scanned<string> {
  const quote = text[pos];
  let value = '';
  for (let i = pos + 1; i < text.length; i++) {
    const c = text[i]!;
    if (quote === "'" && c === "'") {
      if (text[i + 1] !== "'") return { value, end: i + 1 };
      value += "'";
      i++;
    } else if (quote === '"' && c === '"') return { value, end: i + 1 };
    else if (quote === '"' && c === '\\') {
      const escaped = unescape(text, i + 1);
      if (!escaped) fail(i, `an unknown escape ${excerpt(text.slice(i, i + 2))}`);
      value += escaped.value;
      i = escaped.end - 1;
    } else value += c;
  }
  return fail(pos, 'the quoted string is not closed on its line');
}

const ESCAPES: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b',
  ' ': ' ', '"': '"', '/': '/', '\\': '\\', N: '\x85', _: '\xa0', L: '\u2028', P: '\u2029',
};
const HEX_LENGTH: Record<string, number> = { x: 2, u: 4, U: 8 };

function unescape(text: string, i: number): Scanned<string> | null {
  const c = text[i];
  if (c === undefined) return null;
  if (Object.hasOwn(ESCAPES, c)) return { value: ESCAPES[c]!, end: i + 1 };
  const length = HEX_LENGTH[c];
  if (length === undefined) return null;
  const hex = text.slice(i + 1, i + 1 + length);
  if (hex.length !== length || !/^[0-9a-fA-F]+$/.test(hex)) return null;
  const code = Number.parseInt(hex, 16);
  return code > 0x10ffff ? null : { value: String.fromCodePoint(code), end: i + 1 + length };
}

/** `{k: v, ...}` or `[v, ...]`, nested up to MAX_DEPTH. */
function scanFlow(text: string, pos: number, depth: number, fail: Fail): Scanned<YamlValue> {
  if (depth >= MAX_DEPTH) fail(pos, `nesting deeper than ${MAX_DEPTH} levels`);
  const isMap = text[pos] === '{';
  const close = isMap ? '}' : ']';
  const list: YamlValue[] = [];
  const map: YamlMap = Object.create(null);
  let i = skipSpace(text, pos + 1);
  while (text[i] !== close) {
    if (i >= text.length || text[i] === '#') fail(pos, 'the flow collection is not closed on its line');
    if (isMap) {
      const key = scanFlowNode(text, i, depth, fail);
      if (typeof key.value !== 'string') fail(i, 'a mapping key must be a scalar');
      if (Object.hasOwn(map, key.value)) fail(i, `duplicate key ${excerpt(key.value)}`);
      i = skipSpace(text, key.end);
      let value: YamlValue = null;
      if (text[i] === ':') {
        i = skipSpace(text, i + 1);
        if (text[i] !== ',' && text[i] !== close) ({ value, end: i } = scanFlowNode(text, i, depth, fail));
      }
      map[key.value] = value;
    } else {
      const item = scanFlowNode(text, i, depth, fail);
      list.push(item.value);
      i = item.end;
    }
    i = skipSpace(text, i);
    if (text[i] === ',') i = skipSpace(text, i + 1);
    else if (i >= text.length || text[i] === '#') fail(pos, 'the flow collection is not closed on its line');
    else if (text[i] !== close) fail(i, `expected ',' or '${close}'`);
  }
  return { value: isMap ? map : list, end: i + 1 };
}

function scanFlowNode(text: string, pos: number, depth: number, fail: Fail): Scanned<YamlValue> {
  const c = text[pos];
  if (c === '[' || c === '{') return scanFlow(text, pos, depth + 1, fail);
  if (c === '"' || c === "'") return scanQuoted(text, pos, fail);
  let i = pos;
  while (i < text.length && !',[]{}'.includes(text[i]!) && !(text[i] === ':' && isFlowBreak(text, i + 1))) {
    if (text[i] === '#' && isSpace(text[i - 1])) break;
    i++;
  }
  const value = text.slice(pos, i).trimEnd();
  if (value === '') fail(pos, 'expected a value');
  return { value, end: i };
}

export function skipSpace(text: string, i: number): number {
  while (isSpace(text[i])) i++;
  return i;
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/** After a colon: the colon separates a key from its value. */
function isBreak(text: string, i: number): boolean {
  return i >= text.length || isSpace(text[i]);
}

function isFlowBreak(text: string, i: number): boolean {
  return isBreak(text, i) || ',[]{}'.includes(text[i]!);
}
