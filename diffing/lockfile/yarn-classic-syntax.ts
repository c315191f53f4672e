/**
 * The syntax of a yarn classic (v1) lockfile, read by yarn's own parser: `parseSyml` of
 * @yarnpkg/parsers, which yarn 2 and later read v1 lockfiles with. It keeps no positions, so the
 * line of a value found wrong after parsing is looked up in the text, only when an error needs it.
 */
import { createRequire } from 'node:module';
import { refuse } from './errors.js';
import type { YamlDocument, YamlMap } from './yaml.js';

/** The parser recurses once per indentation level: deeper lines are refused before it runs. */
const MAX_DEPTH = 16;
/** parseSyml reads text with this header as v1, anything else as YAML. */
const HEADER = /^(#.*(\r?\n))*?#\s+yarn\s+lockfile\s+v1\r?\n/i;
/** Loaded on the first yarn classic lockfile: commands that read none do not pay for the parser. */
const load = createRequire(import.meta.url);

/** What the parser throws: a message, and where when it is a syntax error. */
interface ParseFailure {
  readonly message: string;
  readonly location?: { readonly start: { readonly line: number; readonly column: number } };
}

export function parseYarnClassic(text: string, file: string): YamlDocument {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fail = (column: number, reason: string) => refuse(file, { line: i + 1, column }, reason);
    if (/^(<{7}|={7}|>{7})/.test(lines[i]!))
      fail(1, 'a merge conflict marker: resolve the conflict, or run yarn to regenerate the lockfile');
    if (lines[i]!.search(/[^ ]/) > 2 * MAX_DEPTH) fail(1, `nesting deeper than ${MAX_DEPTH} levels`);
  }
  // A lockfile without the header is still v1 here (detect.ts said so): the header keeps parseSyml on its v1 parser.
  const added = HEADER.test(text) ? 0 : 1;
  const { parseSyml } = load('@yarnpkg/parsers') as typeof import('@yarnpkg/parsers');
  let root: YamlMap;
  try {
    root = parseSyml(added ? `# yarn lockfile v1\n${text}` : text) as YamlMap;
  } catch (error) {
    const start = (error as ParseFailure).location?.start;
    return refuse(
      file,
      start ? { line: start.line - added, column: start.column } : null,
      (error as ParseFailure).message,
    );
  }
  return { root, line: (container, key) => lineOf(lines, pathTo(root, container, key)) };
}

/** The keys from the root to `container` (an entry, or a field of one), then `key`. */
function pathTo(root: YamlMap, container: object, key: string | undefined): string[] {
  const tail = key === undefined ? [] : [key];
  if (container === root) return key === undefined ? [] : [firstDescriptor(root, root[key]) ?? key];
  for (const descriptor of Object.keys(root)) {
    const entry = root[descriptor];
    if (entry === container) return [descriptor, ...tail];
    if (typeof entry !== 'object' || entry === null) continue;
    for (const field of Object.keys(entry))
      if ((entry as YamlMap)[field] === container) return [descriptor, field, ...tail];
  }
  return [];
}

/** An entry is shared by its descriptors; the first of them starts its line. */
function firstDescriptor(root: YamlMap, entry: unknown): string | undefined {
  return Object.keys(root).find((descriptor) => root[descriptor] === entry);
}

/**
 * The 1-based line of a path of keys: the entry's line, then below it the line at each deeper
 * level (two spaces each) that starts with the next key. The last line found when a key is not.
 */
function lineOf(lines: readonly string[], path: readonly string[]): number {
  let found = 0;
  for (let depth = 0, i = 0; depth < path.length && i < lines.length; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (depth > 0 && indent < depth * 2) break;
    if (indent === depth * 2 && keysOf(line.slice(indent)).includes(path[depth]!)) {
      found = i;
      depth++;
    }
  }
  return found + 1;
}

/** The keys a line starts with: `a, "b":` or `key value`, quoted ones unquoted. */
function keysOf(text: string): string[] {
  const keys: string[] = [];
  for (const match of text.matchAll(/\s*("(?:[^"\\]|\\.)*"|[^\s,:"]+)\s*([,:]?)/gy)) {
    keys.push(match[1]!.startsWith('"') ? unquote(match[1]!) : match[1]!);
    if (match[2] !== ',') break;
  }
  return keys;
}

function unquote(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted; // a key that is not valid JSON matches nothing: the line found so far stands
  }
}
