/**
 * The syntax of a yarn classic (v1) lockfile, as yarn's own parser reads it: indentation in steps
 * of two spaces; `key value` lines; `key1, key2:` lines opening an object shared by every key;
 * strings quoted JSON-style or bare. One pass over the lines with an explicit stack, bounded depth.
 */
import { excerpt, refuse } from './errors.js';
import { lineIn, markKey, markLine } from './lines.js';
import { splitLines } from './text.js';
import type { YamlDocument, YamlMap } from './yaml.js';

const MAX_DEPTH = 16;

type Token = { readonly kind: 'string'; readonly value: string; readonly at: number } | { readonly kind: ':' | ','; readonly at: number };

/** Parses into the YAML reader's shape: objects without prototype, string values, lines kept. */
export function parseYarnClassic(text: string, file: string): YamlDocument {
  const root: YamlMap = Object.create(null);
  const lines = splitLines(text);
  markLine(root, 1, true);
  const stack: YamlMap[] = [root];
  let opened = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fail = (column: number, reason: string): never => refuse(file, { line: i + 1, column: column + 1 }, reason);
    let spaces = 0;
    while (line[spaces] === ' ') spaces++;
    if (spaces === line.length || line[spaces] === '#') continue;
    if (line[spaces] === '\t') fail(spaces, 'a tab in indentation');
    if (/^(<{7}|={7}|>{7})/.test(line)) fail(0, 'a merge conflict marker: resolve the conflict, or run yarn to regenerate the lockfile');
    if (spaces % 2 !== 0) fail(spaces, `an indentation of ${spaces} spaces: expected a multiple of 2`);
    const level = spaces / 2;
    if (level >= stack.length) fail(spaces, opened ? 'unexpected indentation' : 'unexpected indentation: no open object here');
    stack.length = level + 1;
    opened = false;
    const tokens = tokenize(line, spaces, fail);
    const keys: Token[] = [tokens[0]!];
    let t = 1;
    while (tokens[t]?.kind === ',' && tokens[t + 1]?.kind === 'string') {
      keys.push(tokens[t + 1]!);
      t += 2;
    }
    const target = stack[level]!;
    const set = (key: Token, value: YamlMap | string) => {
      if (key.kind !== 'string') return fail(key.at, 'expected a key');
      if (Object.hasOwn(target, key.value)) fail(key.at, `duplicate key ${excerpt(key.value)}`);
      target[key.value] = value;
      markKey(target, key.value, i + 1);
    };
    const next = tokens[t];
    if (next?.kind === ':' && t + 1 === tokens.length) {
      if (stack.length >= MAX_DEPTH) fail(spaces, `nesting deeper than ${MAX_DEPTH} levels`);
      const object: YamlMap = Object.create(null);
      markLine(object, i + 1, true);
      for (const key of keys) set(key, object);
      stack.push(object);
      opened = true;
    } else if (keys.length === 1 && next?.kind === 'string' && t + 1 === tokens.length) set(keys[0]!, next.value);
    else fail(next?.at ?? line.length, next === undefined ? "expected a value or ':'" : `unexpected ${next.kind === 'string' ? 'text' : `'${next.kind}'`}`);
  }
  return { root, line: lineIn };
}

/** The tokens of one line from `start`, a `#` comment ending it. */
function tokenize(line: string, start: number, fail: (column: number, reason: string) => never): Token[] {
  const tokens: Token[] = [];
  for (let i = start; i < line.length; ) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') i++;
    else if (c === '#') break;
    else if (c === ':' || c === ',') tokens.push({ kind: c, at: i++ });
    else if (c === '"') {
      let end = i + 1;
      while (end < line.length && line[end] !== '"') end += line[end] === '\\' ? 2 : 1;
      if (end >= line.length) fail(i, 'the quoted string is not closed on its line');
      tokens.push({ kind: 'string', value: unquote(line.slice(i, end + 1), () => fail(i, 'an invalid escape in a quoted string')), at: i });
      i = end + 1;
    } else {
      let end = i;
      while (end < line.length && !' \t:,"'.includes(line[end]!)) end++;
      tokens.push({ kind: 'string', value: line.slice(i, end), at: i });
      i = end;
    }
  }
  return tokens;
}

function unquote(quoted: string, invalid: () => never): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return invalid();
  }
}
