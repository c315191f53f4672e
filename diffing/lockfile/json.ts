import { excerpt, refuse } from './errors.js';
import { positionAt } from './text.js';

/**
 * JSON.parse, and when it fails, a coded error at the line and column of the first mistake.
 * JSON.parse's own message names a position only on some Node versions, so a small scanner
 * finds it: one pass, an explicit stack instead of recursion (any depth), no regular expressions.
 */
export function parseJson(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // The scanner and JSON.parse agree on what is valid; the fallback only guards a disagreement.
    const found = locateJsonError(text) ?? { offset: text.length, reason: 'not valid JSON' };
    return refuse(file, positionAt(text, found.offset), found.reason);
  }
}

interface JsonMistake {
  readonly offset: number;
  readonly reason: string;
}

const OBJECT = 1;
const ARRAY = 2;

/** The first syntax error in `text`, or null when it is valid JSON. */
export function locateJsonError(text: string): JsonMistake | null {
  const stack: number[] = [];
  let i = skipSpace(text, 0);
  let expectValue = true;
  const fail = (offset: number, expected: string): JsonMistake => ({ offset, reason: mistake(text, offset, expected) });
  for (;;) {
    if (expectValue) {
      const c = text[i];
      if (c === '{' || c === '[') {
        i = skipSpace(text, i + 1);
        if (text[i] === (c === '{' ? '}' : ']')) i++;
        else if (c === '[') {
          stack.push(ARRAY);
          continue;
        } else {
          stack.push(OBJECT);
          const key = scanKey(text, i);
          if (typeof key !== 'number') return key;
          i = key;
          continue;
        }
      } else if (c === '"') {
        const end = scanString(text, i);
        if (typeof end !== 'number') return end;
        i = end;
      } else if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) {
        const end = scanNumber(text, i);
        if (typeof end !== 'number') return end;
        i = end;
      } else if (text.startsWith('true', i)) i += 4;
      else if (text.startsWith('false', i)) i += 5;
      else if (text.startsWith('null', i)) i += 4;
      else return fail(i, 'a value');
      expectValue = false;
    }
    i = skipSpace(text, i);
    const top = stack.at(-1);
    if (top === undefined) return i < text.length ? fail(i, 'the end of input after the value') : null;
    const c = text[i];
    if (c === ',') {
      i = skipSpace(text, i + 1);
      if (top === OBJECT) {
        const key = scanKey(text, i);
        if (typeof key !== 'number') return key;
        i = key;
      }
      expectValue = true;
    } else if (c === (top === OBJECT ? '}' : ']')) {
      stack.pop();
      i++;
    } else return fail(i, top === OBJECT ? "',' or '}'" : "',' or ']'");
  }
}

/** A key, the colon and the space after it: the offset of the value. */
function scanKey(text: string, i: number): number | JsonMistake {
  if (text[i] !== '"') return { offset: i, reason: mistake(text, i, 'a double-quoted property name') };
  const end = scanString(text, i);
  if (typeof end !== 'number') return end;
  const colon = skipSpace(text, end);
  if (text[colon] !== ':') return { offset: colon, reason: mistake(text, colon, "':' after the property name") };
  return skipSpace(text, colon + 1);
}

function scanString(text: string, start: number): number | JsonMistake {
  for (let i = start + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return { offset: i, reason: 'a control character inside a string' };
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        for (let k = i + 2; k < i + 6; k++) if (!isHex(text.charCodeAt(k))) return { offset: k, reason: mistake(text, k, 'a hex digit') };
        i += 5;
      } else if (next !== undefined && '"\\/bfnrt'.includes(next)) i++;
      else return { offset: i + 1, reason: mistake(text, i + 1, 'an escape character') };
    }
  }
  return { offset: text.length, reason: 'unexpected end of input: the string is not closed' };
}

function scanNumber(text: string, i: number): number | JsonMistake {
  const digits = (from: number): number | JsonMistake => {
    if (!isDigit(text, from)) return { offset: from, reason: mistake(text, from, 'a digit') };
    while (isDigit(text, from)) from++;
    return from;
  };
  if (text[i] === '-') i++;
  let end = text[i] === '0' ? i + 1 : digits(i);
  if (typeof end !== 'number') return end;
  if (text[end] === '.') {
    end = digits(end + 1);
    if (typeof end !== 'number') return end;
  }
  if (text[end] === 'e' || text[end] === 'E') {
    end++;
    if (text[end] === '+' || text[end] === '-') end++;
    return digits(end);
  }
  return end;
}

function mistake(text: string, offset: number, expected: string): string {
  return offset >= text.length ? `unexpected end of input: expected ${expected}` : `expected ${expected}, found ${excerpt(text[offset]!)}`;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

function isDigit(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return c >= 0x30 && c <= 0x39;
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}
