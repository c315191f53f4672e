/**
 * The YAML lockfiles (pnpm-lock.yaml, yarn berry's yarn.lock), read by the `yaml` package with
 * its failsafe schema: every scalar stays a string (the readers know which fields are numbers),
 * an empty value is null. What a lockfile never has is refused rather than resolved: anchors,
 * aliases, tags, a second document, a key that is not a scalar, a duplicate key, nesting deeper
 * than MAX_DEPTH. The line of a mapping, a sequence or a key, for the errors the readers find after
 * parsing, is looked up in the parser's nodes when such an error asks for it.
 */
import { createRequire } from 'node:module';
import type { CST, LineCounter, Node as YamlNode, YAMLMap, YAMLSeq } from 'yaml';
import { excerpt, refuse, type Position } from './errors.js';

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

const MAX_DEPTH = 64;
/** Loaded on the first YAML lockfile: commands that read none do not pay for the parser. */
const load = createRequire(import.meta.url);

export function parseYaml(text: string, file: string): YamlDocument {
  const { Composer, LineCounter, Parser, isAlias, isMap, isScalar, isSeq } = load('yaml') as typeof import('yaml');
  const counter = new LineCounter();
  const tokens = [...new Parser(counter.addNewLine).parse(text)];
  const fail = (offset: number, reason: string): never => refuse(file, positionOf(counter, offset), reason);
  const deep = tooDeep(tokens);
  if (deep !== null) fail(deep, `nesting deeper than ${MAX_DEPTH} levels`);
  // Duplicate keys are found below, in one pass: the composer's own check compares each key with every earlier one.
  const docs = [...new Composer({ schema: 'failsafe', uniqueKeys: false }).compose(tokens, true, text.length)];
  if (docs.length > 1) fail(docs[1]!.range[0], 'a second YAML document: a lockfile has one');
  const doc = docs[0];
  const error = doc?.errors.length ? doc.errors.reduce((first, next) => (next.pos[0] < first.pos[0] ? next : first)) : undefined;
  if (error) fail(error.pos[0], error.message);

  const nodes = new WeakMap<object, YAMLMap | YAMLSeq>();
  const convert = (node: YamlNode | null | undefined): YamlValue => {
    if (node === null || node === undefined) return null;
    const start = node.range?.[0] ?? 0;
    if (isAlias(node) || node.anchor !== undefined || node.tag !== undefined) fail(start, 'anchors, aliases and tags are not supported in a lockfile');
    if (isScalar(node)) return node.type === 'PLAIN' && node.source === '' ? null : String(node.value);
    if (isSeq(node)) {
      const list = node.items.map((item) => convert(item as YamlNode | null));
      nodes.set(list, node);
      return list;
    }
    if (!isMap(node)) return fail(start, 'not a value a lockfile has');
    const map: YamlMap = Object.create(null);
    nodes.set(map, node);
    for (const pair of node.items) {
      const key = pair.key as YamlNode | null;
      if (key !== null && !isScalar(key)) fail(key.range?.[0] ?? start, 'a mapping key must be a scalar');
      const name = (convert(key) as string | null) ?? '';
      if (Object.hasOwn(map, name)) fail(key?.range?.[0] ?? start, `duplicate key ${excerpt(name)}`);
      map[name] = convert(pair.value as YamlNode | null);
    }
    return map;
  };
  const root = convert(doc?.contents);
  const lineAt = (node: YamlNode | null | undefined) => (node?.range ? counter.linePos(node.range[0]).line : 1);
  return {
    root,
    line: (container, key) => {
      const node = nodes.get(container);
      const pair = key !== undefined && isMap(node) ? node.items.find((item) => isScalar(item.key) && String(item.key.value) === key) : undefined;
      return lineAt((pair?.key as YamlNode | undefined) ?? node);
    },
  };
}

/**
 * The offset of a collection nested deeper than MAX_DEPTH, found on the parser's tokens
 * with an explicit stack: composing them recurses, and a 10k-deep document would exhaust the stack.
 */
function tooDeep(tokens: readonly CST.Token[]): number | null {
  const stack = tokens.map((token) => ({ token, depth: 0 }));
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { token, depth } = next;
    if (token.type === 'document' && token.value) stack.push({ token: token.value, depth });
    if (token.type !== 'block-map' && token.type !== 'block-seq' && token.type !== 'flow-collection') continue;
    if (depth >= MAX_DEPTH) return token.offset;
    for (const item of token.items) for (const child of [item.key, item.value]) if (child) stack.push({ token: child, depth: depth + 1 });
  }
  return null;
}

function positionOf(counter: LineCounter, offset: number): Position {
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}
