/**
 * Where JSON text first goes wrong, as line and column, and what is wrong there: `JSON.parse`
 * says "at position N" for some mistakes and only quotes the text around others ("Unexpected
 * token"), so a config or lockfile error could not otherwise be placed. A small iterative scanner
 * of RFC 8259 (no recursion: nesting depth costs nothing); only called once parsing has failed.
 */
export function jsonSyntaxError(text: string): { offset: number; line: number; column: number; reason: string } {
  const offset = jsonErrorOffset(text);
  const before = text.slice(0, offset).split('\n');
  const reason = offset >= text.length ? 'the text ends early' : `unexpected ${JSON.stringify(text[offset])}`;
  return { offset, line: before.length, column: before.at(-1)!.length + 1, reason };
}

type Expect = 'value' | 'value-or-close' | 'key' | 'key-or-close' | 'colon' | 'comma-or-close' | 'done';

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;
const isHex = (code: number) => isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);

/** Scans the string starting at `at` (a quote): the offset after it, or `~offset` of the first bad character. */
function scanString(text: string, at: number): number {
  for (let j = at + 1; j < text.length; j++) {
    const code = text.charCodeAt(j);
    if (code === 0x22) return j + 1;
    if (code < 0x20) return ~j;
    if (code !== 0x5c) continue;
    const escaped = text[++j];
    if (escaped === undefined) return ~j;
    if (escaped === 'u') {
      for (let k = 1; k <= 4; k++) if (!isHex(text.charCodeAt(j + k))) return ~(j + k);
      j += 4;
    } else if (!'"\\/bfnrt'.includes(escaped)) return ~j;
  }
  return ~text.length;
}

/** Scans the number starting at `at`: the offset after it, or `~offset` of the first bad character. */
function scanNumber(text: string, at: number): number {
  let j = at;
  if (text[j] === '-') j++;
  if (text[j] === '0') j++;
  else if (isDigit(text.charCodeAt(j))) while (isDigit(text.charCodeAt(j))) j++;
  else return ~j;
  if (text[j] === '.') {
    if (!isDigit(text.charCodeAt(++j))) return ~j;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  if (text[j] === 'e' || text[j] === 'E') {
    if (text[++j] === '+' || text[j] === '-') j++;
    if (!isDigit(text.charCodeAt(j))) return ~j;
    while (isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}

/** Scans `true`, `false` or `null` at `at`: the offset after it, or `~offset` of the first character that differs. */
function scanLiteral(text: string, at: number): number {
  const word = text[at] === 't' ? 'true' : text[at] === 'f' ? 'false' : 'null';
  for (let k = 0; k < word.length; k++) if (text[at + k] !== word[k]) return ~(at + k);
  return at + word.length;
}

/** The offset of the first character that makes `text` invalid JSON; `text.length` when it ends early. */
export function jsonErrorOffset(text: string): number {
  const stack: string[] = [];
  let expect: Expect = 'value';
  let i = 0;
  /** Moves past a scanned token; false (with `i` at the bad character) when it is not one. */
  const take = (end: number): boolean => {
    i = end < 0 ? Math.min(~end, text.length) : end;
    return end >= 0;
  };
  const afterValue = (): Expect => (stack.length > 0 ? 'comma-or-close' : 'done');
  for (;;) {
    while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
    if (i >= text.length) return text.length;
    const c = text[i]!;
    if (expect === 'done') return i;
    if (expect === 'colon') {
      if (c !== ':') return i;
      i++;
      expect = 'value';
    } else if (expect === 'comma-or-close') {
      const top = stack.at(-1)!;
      if (c === ',') {
        i++;
        expect = top === '{' ? 'key' : 'value';
      } else if ((c === '}' && top === '{') || (c === ']' && top === '[')) {
        i++;
        stack.pop();
        expect = afterValue();
      } else return i;
    } else if (expect === 'key' || expect === 'key-or-close') {
      if (c === '}' && expect === 'key-or-close') {
        i++;
        stack.pop();
        expect = afterValue();
      } else if (c !== '"' || !take(scanString(text, i))) return i;
      else expect = 'colon';
    } else if (c === ']' && expect === 'value-or-close') {
      i++;
      stack.pop();
      expect = afterValue();
    } else if (c === '{' || c === '[') {
      i++;
      stack.push(c);
      expect = c === '{' ? 'key-or-close' : 'value-or-close';
    } else if (c === '"' || c === '-' || isDigit(text.charCodeAt(i)) || c === 't' || c === 'f' || c === 'n') {
      const end =
        c === '"'
          ? scanString(text, i)
          : c === 't' || c === 'f' || c === 'n'
            ? scanLiteral(text, i)
            : scanNumber(text, i);
      if (!take(end)) return i;
      expect = afterValue();
    } else return i;
  }
}
