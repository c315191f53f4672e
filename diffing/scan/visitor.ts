/**
 * The traversal, as a table from node type to handler (istanbul-lib-instrument's `codeVisitor`).
 * Handlers only ask `resolve` what an expression denotes and look it up in `RULES`; what counts as
 * a site is data in `table.ts`. A node whose leading comment is the ignore hint
 * (`/* detdrift ignore next *\/`) is skipped with everything inside it.
 */
import type { NodePath, Visitor } from '@babel/traverse';
import type { Node } from '@babel/types';
import { keyName, propertyName, resolve } from './resolve.js';
import type { SourceText } from './site.js';
import { RULES, type SiteRule } from './table.js';
import type { ScanSite } from './types.js';

// `/* detdrift ignore next */`, `// detdrift ignore next: why` (istanbul's `ignore next` grammar).
export const IGNORE_HINT = /^\s*detdrift\s+ignore\s+next(?=\W|$)/;

/** What the traversal collects into: the state of one file's scan. */
export interface Collector {
  readonly source: SourceText;
  readonly sites: ScanSite[];
  /** calls a run made in this file, by `line:column`, with their API (`RanCalls`) */
  readonly ran: ReadonlyMap<string, string> | undefined;
}

// A member callee or argument can only be a site when its last name is one of these.
const CALL_NAMES = lastNames(RULES.call);
const NEW_NAMES = lastNames(RULES.new);
const READ_NAMES = lastNames(RULES.read);
// `Date.now.call(null)`, `Math.random.apply(Math)`, `Date.now.bind(Date)` call (or will call) the API.
const FORWARDERS = new Set(['call', 'apply', 'bind']);

export const VISITOR: Visitor<Collector> = {
  enter: skipIgnored,
  CallExpression: onCall,
  OptionalCallExpression: onCall,
  NewExpression: onNew,
  MemberExpression: onRead,
  OptionalMemberExpression: onRead,
  VariableDeclarator: onDestructure,
};

function skipIgnored(path: NodePath): void {
  if (path.node.leadingComments?.some((comment) => IGNORE_HINT.test(comment.value))) path.skip();
}

function onCall(this: Collector, path: NodePath<Node & { type: 'CallExpression' | 'OptionalCallExpression' }>): void {
  const callee = path.get('callee') as NodePath;
  const rule = lookup(callee, RULES.call, CALL_NAMES) ?? forwarded(callee);
  const at = callPosition(this.source, callee);
  // A call through an alias the scan does not follow (a parameter, a reassigned name) that a run made: the
  // run knew what it called.
  const ran = rule ? undefined : this.ran?.get(positionKey(this.source.position(at)));
  if (rule ?? ran) add(this, rule ?? { api: ran! }, path, at);
  passedArguments(this, path);
}

function onNew(this: Collector, path: NodePath<Node & { type: 'NewExpression' }>): void {
  if (path.node.arguments.length === 0) {
    const rule = lookup(path.get('callee') as NodePath, RULES.new, NEW_NAMES);
    if (rule) add(this, rule, path, path.node.start!);
  }
  passedArguments(this, path);
}

/** `process.pid`, `performance.timeOrigin`: a read anywhere but the target of a write. */
function onRead(
  this: Collector,
  path: NodePath<Node & { type: 'MemberExpression' | 'OptionalMemberExpression' }>,
): void {
  const name = propertyName(path.node);
  if (name === null || !READ_NAMES.has(name)) return;
  const parent = path.parent;
  if (parent.type === 'AssignmentExpression' && parent.left === path.node) return;
  if (parent.type === 'UpdateExpression' || (parent.type === 'UnaryExpression' && parent.operator === 'delete')) return;
  const rule = ruleOf(resolve(path), RULES.read);
  if (rule) add(this, rule, path, path.node.property.start!);
}

/** `const { pid } = process`: the read happens at the declaration. */
function onDestructure(this: Collector, path: NodePath<Node & { type: 'VariableDeclarator' }>): void {
  const { id, init } = path.node;
  if (id.type !== 'ObjectPattern' || !init || !mentions(id, READ_NAMES)) return;
  const visit = (pattern: Node, refs: readonly string[], at: NodePath): void => {
    if (pattern.type === 'AssignmentPattern') {
      visit(pattern.left, refs, at);
      return;
    }
    if (pattern.type !== 'ObjectPattern' || refs.length === 0) return;
    for (const property of pattern.properties) {
      if (property.type !== 'ObjectProperty') continue;
      const key = keyName(property.key, property.computed);
      if (key === null) continue;
      const inner = refs.map((ref) => (ref === '' ? key : `${ref}.${key}`));
      const rule = ruleOf(inner, RULES.read);
      if (rule) add(this, rule, at, property.key.start!);
      else visit(property.value, inner, at);
    }
  };
  visit(id, resolve(path.get('init') as NodePath), path);
}

function passedArguments(collector: Collector, path: NodePath<Node & { arguments: Node[] }>): void {
  const args = path.get('arguments') as NodePath[];
  for (const arg of args) {
    const node = arg.node;
    if (node.type !== 'Identifier' && node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression')
      continue;
    const rule = lookup(arg, RULES.call, CALL_NAMES);
    if (rule && rule.passed !== false) add(collector, rule, arg, calleePosition(node));
  }
}

/** The rule for what an expression denotes; a member whose name no rule ends with is not resolved. */
function lookup(
  path: NodePath,
  rules: ReadonlyMap<string, SiteRule>,
  names: ReadonlySet<string>,
): SiteRule | undefined {
  const name = propertyName(path.node);
  if (name !== null && !names.has(name)) return undefined;
  return ruleOf(resolve(path), rules);
}

/** The rule of the first reference that has one: `globalCrypto.getRandomValues` may be the global's or the module's. */
function ruleOf(refs: readonly string[], rules: ReadonlyMap<string, SiteRule>): SiteRule | undefined {
  for (const ref of refs) {
    const rule = rules.get(ref);
    if (rule) return rule;
  }
  return undefined;
}

function forwarded(callee: NodePath): SiteRule | undefined {
  const name = propertyName(callee.node);
  if (name === null || !FORWARDERS.has(name)) return undefined;
  return lookup(callee.get('object') as NodePath, RULES.call, CALL_NAMES);
}

/** `line:column`, 1-based: how `RanCalls` names a place in a file. */
export function positionKey({ line, column }: { line: number; column: number }): string {
  return `${line}:${column}`;
}

function add(collector: Collector, rule: Pick<SiteRule, 'api'>, path: NodePath, at: number): void {
  collector.sites.push(collector.source.site(rule.api, path, at));
}

/** Where V8 places a call: the property of `a.b()`, the `(` of `a['b']()`, else the callee. */
function callPosition(source: SourceText, callee: NodePath): number {
  const node = callee.node;
  if ((node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') && node.computed) {
    const paren = source.code.indexOf('(', node.end!);
    return paren === -1 ? node.start! : paren;
  }
  return calleePosition(node);
}

function calleePosition(node: Node): number {
  if (node.type === 'SequenceExpression') return calleePosition(node.expressions.at(-1)!);
  if (node.type === 'MemberExpression' || node.type === 'OptionalMemberExpression') return node.property.start!;
  return node.start!;
}

function mentions(pattern: Node, names: ReadonlySet<string>): boolean {
  if (pattern.type === 'AssignmentPattern') return mentions(pattern.left, names);
  if (pattern.type !== 'ObjectPattern') return false;
  return pattern.properties.some((property) => {
    if (property.type !== 'ObjectProperty') return false;
    const key = keyName(property.key, property.computed);
    return (key !== null && names.has(key)) || mentions(property.value, names);
  });
}

function lastNames(rules: ReadonlyMap<string, SiteRule>): ReadonlySet<string> {
  return new Set([...rules.keys()].map((ref) => ref.slice(ref.lastIndexOf('.') + 1)));
}
