/**
 * A YAML reader for the subset lockfiles use (pnpm-lock.yaml, yarn berry's yarn.lock): block
 * mappings and sequences, flow collections on one line, quoted and plain scalars, block scalars,
 * comments. Scalars stay strings (the readers know which fields are numbers); an empty value is
 * null. Anchors, aliases, tags, multi-line flow or quoted scalars and multiple documents are
 * refused with a coded error, as are tabs in indentation, duplicate keys and nesting deeper than
 * MAX_DEPTH. Work is linear in the text; recursion is bounded by MAX_DEPTH.
 */
import { excerpt, refuse } from './errors.js';
import { lineIn, markKey, markLine } from './lines.js';
import { splitLines } from './text.js';
import { countSpaces, scanBlockScalar } from './yaml-block.js';
import { MAX_DEPTH, scanInline, scanKey, skipSpace, type Fail } from './yaml-inline.js';

export type YamlValue = string | null | YamlValue[] | YamlMap;
/** A mapping, with no prototype: a key named `__proto__` is data. */
export interface YamlMap {
  [key: string]: YamlValue;
}

export interface YamlDocument {
  readonly root: YamlValue;
  /** The 1-based line of a mapping or sequence, or of one key of a mapping. */
  line(container: object, key?: string): number;
}

export function parseYaml(text: string, file: string): YamlDocument {
  return new BlockParser(splitLines(text), file).document();
}

class BlockParser {
  /** the current significant line: neither blank nor only a comment */
  private next: number;

  constructor(
    private readonly lines: readonly string[],
    private readonly file: string,
  ) {
    this.next = this.skip(0);
  }

  document(): YamlDocument {
    const first = this.lines[this.next];
    if (first !== undefined && first.startsWith('---') && (first.length === 3 || first[3] === ' ')) {
      const after = skipSpace(first, 3);
      if (after < first.length && first[after] !== '#') this.fail(this.next, after, 'content after the document marker is not supported');
      this.next = this.skip(this.next + 1);
    }
    const root = this.next < this.lines.length ? this.block(this.next, this.indent(this.next), 0) : null;
    if (this.next < this.lines.length) this.fail(this.next, this.indent(this.next), 'unexpected indentation');
    return { root, line: lineIn };
  }

  private block(line: number, column: number, depth: number): YamlValue {
    if (depth >= MAX_DEPTH) this.fail(line, column, `nesting deeper than ${MAX_DEPTH} levels`);
    return isItem(this.lines[line]!, column) ? this.sequence(line, column, depth) : this.mapping(line, column, depth);
  }

  private mapping(line: number, column: number, depth: number): YamlMap {
    const map: YamlMap = Object.create(null);
    markLine(map, line + 1, true);
    for (;;) {
      const text = this.lines[line]!;
      const fail = this.failer(line);
      if (isItem(text, column)) fail(column, 'a sequence item where a mapping key was expected');
      const key = scanKey(text, column, fail) ?? fail(column, "expected 'key: value'");
      if (Object.hasOwn(map, key.value)) fail(column, `duplicate key ${excerpt(key.value)}`);
      markKey(map, key.value, line + 1);
      map[key.value] = this.value(line, skipSpace(text, key.end), column, depth, true);
      if (this.next >= this.lines.length || this.indent(this.next) < column) return map;
      if (this.indent(this.next) > column) this.fail(this.next, this.indent(this.next), 'unexpected indentation');
      line = this.next;
    }
  }

  private sequence(line: number, column: number, depth: number): YamlValue[] {
    const list: YamlValue[] = [];
    markLine(list, line + 1, false);
    for (;;) {
      const text = this.lines[line]!;
      const start = skipSpace(text, column + 1);
      const fail = this.failer(line);
      if (start < text.length && text[start] !== '#' && (isItem(text, start) || scanKey(text, start, fail))) {
        if (depth + 1 >= MAX_DEPTH) fail(start, `nesting deeper than ${MAX_DEPTH} levels`);
        list.push(isItem(text, start) ? this.sequence(line, start, depth + 1) : this.mapping(line, start, depth + 1));
      } else list.push(this.value(line, start, column, depth, false));
      if (this.next >= this.lines.length || this.indent(this.next) < column) return list;
      if (this.indent(this.next) > column) this.fail(this.next, this.indent(this.next), 'unexpected indentation');
      if (!isItem(this.lines[this.next]!, column)) return list;
      line = this.next;
    }
  }

  /** The value after a key or a dash: on the rest of the line, or a block on the lines below. */
  private value(line: number, start: number, column: number, depth: number, sequenceMayAlign: boolean): YamlValue {
    const text = this.lines[line]!;
    const fail = this.failer(line);
    if (start >= text.length || text[start] === '#') {
      this.next = this.skip(line + 1);
      if (this.next >= this.lines.length) return null;
      const indent = this.indent(this.next);
      if (indent > column) return this.block(this.next, indent, depth + 1);
      // `key:` followed by `- item` at the key's own indentation is a sequence too.
      if (sequenceMayAlign && indent === column && isItem(this.lines[this.next]!, column)) return this.sequence(this.next, column, depth + 1);
      return null;
    }
    if (text[start] === '|' || text[start] === '>') {
      const block = scanBlockScalar(this.lines, line, start, column, fail);
      this.next = this.skip(block.end);
      return block.value;
    }
    const inline = scanInline(text, start, fail);
    const rest = skipSpace(text, inline.end);
    if (rest < text.length && text[rest] !== '#') fail(rest, 'unexpected text after the value');
    this.next = this.skip(line + 1);
    return inline.value;
  }

  private skip(from: number): number {
    for (let i = from; i < this.lines.length; i++) {
      const text = this.lines[i]!;
      const first = skipSpace(text, 0);
      if (first === text.length || text[first] === '#') continue;
      if (text.slice(0, first).includes('\t')) this.fail(i, text.indexOf('\t'), 'a tab in indentation');
      return i;
    }
    return this.lines.length;
  }

  private indent(line: number): number {
    return countSpaces(this.lines[line]!);
  }

  private failer(line: number): Fail {
    return (column, reason) => this.fail(line, column, reason);
  }

  private fail(line: number, column: number, reason: string): never {
    return refuse(this.file, { line: line + 1, column: column + 1 }, reason);
  }
}

/** `- ` or a lone `-` at `column`. */
function isItem(text: string, column: number): boolean {
  return text[column] === '-' && (column + 1 === text.length || text[column + 1] === ' ');
}
