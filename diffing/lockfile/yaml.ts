/**
 * The YAML lockfiles (pnpm-lock.yaml, yarn berry's yarn.lock), read with the failsafe schema:
 * every scalar stays a string (the readers know which fields are numbers), an empty value is null.
 * What a lockfile never has is refused rather than resolved: anchors, aliases, tags, a second
 * document, a key that is not a scalar, a duplicate key, nesting deeper than MAX_DEPTH.
 *
 * Two parsers, one meaning. `js-yaml` reads a lockfile three to four times faster than `yaml`, so it
 * reads first, and watches each node it builds for what a lockfile never has. `yaml` keeps every
 * node's place in the text, so it decides whenever the first one balks or saw anything to refuse,
 * and it places the errors: those it finds, and those the readers find after parsing (`line`).
 */
import { createRequire } from 'node:module';
import type { EventType, LoadOptions, State } from 'js-yaml';
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
/** Loaded on the first YAML lockfile: commands that read none do not pay for the parsers. */
const load = createRequire(import.meta.url);

export function parseYaml(text: string, file: string): YamlDocument {
  const root = readQuickly(text);
  if (root === undefined) return readPrecisely(text, file);
  let precise: YamlDocument | undefined;
  return {
    root,
    line: (container, key) => {
      precise ??= readPrecisely(text, file);
      return precise.line(counterpart(container, root, precise.root) ?? container, key);
    },
  };
}

/** The lockfile's values as js-yaml reads them, or undefined when `yaml` must decide. */
function readQuickly(text: string): YamlValue | undefined {
  const { FAILSAFE_SCHEMA, load: read } = load('js-yaml') as typeof import('js-yaml');
  let depth = 0;
  let collections = 0;
  let refused = false;
  // js-yaml's node events: the open of each node, and its close with what it read (`tag` is '?' on a
  // plain scalar and null on any other untagged node; an alias finds no anchor, since each is refused).
  const listener = (event: EventType, { anchor, tag, kind, result }: State & NodeProperties) => {
    if (event === 'open') {
      if (++depth > MAX_DEPTH + 1) throw refusedHere;
      return;
    }
    depth--;
    if (anchor !== null || (tag !== null && tag !== '?')) refused = true;
    if (kind === 'mapping' && result !== null) Object.setPrototypeOf(result, null);
    if (kind === 'mapping' || kind === 'sequence') collections++;
  };
  let root: YamlValue;
  try {
    root = read(text, { schema: FAILSAFE_SCHEMA, listener: listener as LoadOptions['listener'] }) as YamlValue;
  } catch {
    return undefined;
  }
  // A collection read as a key is stringified into it: it is the one not reachable from the root.
  return refused || collections !== countCollections(root) ? undefined : (root ?? null);
}

/** What js-yaml's state has of the node that closes, beyond its declared fields. */
interface NodeProperties {
  readonly anchor: string | null;
  readonly tag: string | null;
}

const refusedHere = new Error('refused');

function countCollections(root: YamlValue | undefined): number {
  let count = 0;
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    count++;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push(child);
  }
  return count;
}

/** The node of `theirs` at the place `ours` has in `root`: the two readings have one shape. */
function counterpart(ours: object, root: YamlValue, theirs: YamlValue): object | undefined {
  const stack: [unknown, unknown][] = [[root, theirs]];
  for (let pair = stack.pop(); pair !== undefined; pair = stack.pop()) {
    const [mine, other] = pair;
    if (mine === null || typeof mine !== 'object' || other === null || typeof other !== 'object') continue;
    if (mine === ours) return other;
    for (const key of Object.keys(mine))
      stack.push([(mine as Record<string, unknown>)[key], (other as Record<string, unknown>)[key]]);
  }
  return undefined;
}

/** The lockfile as `yaml` reads it, every refusal and parse error placed at its line and column. */
export function readPrecisely(text: string, file: string): YamlDocument {
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
  const error = doc?.errors.length
    ? doc.errors.reduce((first, next) => (next.pos[0] < first.pos[0] ? next : first))
    : undefined;
  if (error) fail(error.pos[0], error.message);

  const nodes = new WeakMap<object, YAMLMap | YAMLSeq>();
  const convert = (node: YamlNode | null | undefined): YamlValue => {
    if (node === null || node === undefined) return null;
    const start = node.range?.[0] ?? 0;
    if (isAlias(node) || node.anchor !== undefined || node.tag !== undefined)
      fail(start, 'anchors, aliases and tags are not supported in a lockfile');
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
      const pair =
        key !== undefined && isMap(node)
          ? node.items.find((item) => isScalar(item.key) && String(item.key.value) === key)
          : undefined;
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
    for (const item of token.items)
      for (const child of [item.key, item.value]) if (child) stack.push({ token: child, depth: depth + 1 });
  }
  return null;
}

function positionOf(counter: LineCounter, offset: number): Position {
  const { line, col } = counter.linePos(offset);
  return { line, column: col };
}
