/**
 * Resolves an expression to the references it may denote (`Math.random`, `node:crypto.randomBytes`),
 * following what Babel's scope knows: a name bound by nothing is a global; an import or a
 * `require` of a builtin module is that module; a variable is what it was initialized with (or
 * assigned exactly once, as minifiers write `var a; ... a = require("crypto")`), through
 * destructuring, members of a local object literal, and what a local function returns. Code that
 * picks among spellings (`globalThis.crypto || require('crypto')`, `a ? window.crypto : b`) may
 * denote each of them: all are kept. A parameter, a class, a reassigned variable resolve to
 * nothing: a local `now` or a parameter named `Math` is not the global.
 */
import { builtinModules } from 'node:module';
import type { Binding, NodePath } from '@babel/traverse';
import type { Node } from '@babel/types';
import { REWRITES } from './table.js';

/** The global object (`globalThis`, `global`, `self`, `window`) resolves to the empty path. */
const GLOBAL = '';
const REQUIRE = 'require';
const BUILTINS = new Set(builtinModules);
const NONE: readonly string[] = [];
// Enough for any alias chain a person or a minifier writes; a cycle (`var a = b, b = a`) stops here.
const MAX_DEPTH = 24;
// Steps one resolution may take: every `||` resolves both sides, and minified code chains many.
const MAX_STEPS = 400;
// More spellings than feature detection ever tries; past this the rest are dropped.
const MAX_ALTERNATIVES = 8;
// Interop helpers of Babel, TypeScript and esbuild: `_interopRequireDefault(require("crypto")).default`,
// `__toESM(require("crypto"), 1)`: they hand back the module (or a namespace holding it as `default`).
const INTEROP = /^_*(?:interopRequire(?:Default|Wildcard)|importDefault|importStar|toESM)$/;

interface Budget {
  steps: number;
}

/** The references an expression may denote, each once, in source order; none when it is not known. */
export function resolve(path: NodePath): readonly string[] {
  return resolveAt(path, 0, { steps: MAX_STEPS });
}

function resolveAt(path: NodePath, depth: number, budget: Budget): readonly string[] {
  if (depth > MAX_DEPTH || --budget.steps < 0) return NONE;
  const node = path.node;
  const inner = (key: string) => resolveAt(path.get(key) as NodePath, depth + 1, budget);
  switch (node.type) {
    case 'Identifier':
      return resolveName(path, node.name, depth, budget);
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const key = propertyName(node);
      return key === null ? NONE : memberOf(path.get('object') as NodePath, [key], depth, budget);
    }
    case 'CallExpression':
      return resolveCall(path as NodePath<Node & { type: 'CallExpression' }>, depth, budget);
    case 'SequenceExpression': // `(0, _crypto.randomBytes)(16)` from transpilers
      return resolveAt((path.get('expressions') as NodePath[]).at(-1)!, depth + 1, budget);
    case 'ParenthesizedExpression':
      return inner('expression');
    case 'AwaitExpression': // `(await import('node:crypto')).randomUUID`
      return inner('argument');
    case 'LogicalExpression':
      // `globalThis.crypto || require('crypto')`: either side; `root && root.crypto`: the right
      // one, as the left is falsy whenever it is the value.
      return node.operator === '&&' ? inner('right') : union(inner('left'), inner('right'));
    case 'ConditionalExpression': // `typeof window !== 'undefined' ? window.crypto : globalThis.crypto`
      return union(inner('consequent'), inner('alternate'));
    default:
      return NONE;
  }
}

/** The name of a member's property: `a.b`, `a?.b`, `a['b']`, `` a[`b`] ``; null when computed. */
export function propertyName(node: Node): string | null {
  if (node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') return null;
  const property = node.property;
  if (!node.computed) return property.type === 'Identifier' ? property.name : null;
  if (property.type === 'StringLiteral') return property.value.includes('.') ? null : property.value;
  if (property.type === 'TemplateLiteral' && property.expressions.length === 0)
    return property.quasis[0]!.value.cooked ?? null;
  return null;
}

function resolveName(path: NodePath, name: string, depth: number, budget: Budget): readonly string[] {
  const binding = path.scope.getBinding(name);
  if (!binding) return [rewrite(name)];
  return resolveBinding(binding, depth + 1, budget);
}

function resolveBinding(binding: Binding, depth: number, budget: Budget): readonly string[] {
  const declaration = binding.path;
  if (binding.kind === 'module') {
    const source = (declaration.parent as Node & { source?: { value: string } }).source?.value;
    const module = source === undefined ? null : builtin(source);
    if (module === null) return NONE;
    const node = declaration.node;
    if (node.type !== 'ImportSpecifier') return [module]; // default and namespace imports
    const imported = node.imported.type === 'Identifier' ? node.imported.name : node.imported.value;
    return [imported === 'default' ? module : join(module, imported)];
  }
  if (binding.kind !== 'var' && binding.kind !== 'let' && binding.kind !== 'const') return NONE;
  if (!declaration.isVariableDeclarator()) return NONE;
  const init = initializer(binding);
  const keys = patternKeys(declaration.node.id, binding.identifier);
  return init === null || keys === null ? NONE : memberOf(init, keys, depth, budget);
}

/**
 * What `object.a.b` denotes, for keys [a, b]: the value of a local object literal's property where the object
 * is one.
 */
function memberOf(object: NodePath, keys: readonly string[], depth: number, budget: Budget): readonly string[] {
  if (keys.length === 0) return resolveAt(object, depth + 1, budget);
  const [first, ...rest] = keys as [string, ...string[]];
  // `const api = { now: Date.now }; api.now()`: the member is the literal's value.
  const literal = objectLiteral(object);
  const base = literal
    ? literalMember(literal, first, depth, budget)
    : resolveAt(object, depth + 1, budget).map((ref) =>
        // ESM's default export of a builtin is the module itself (`crypto_1.default.randomBytes`).
        first === 'default' && ref.startsWith('node:') && !ref.includes('.') ? ref : join(ref, first),
      );
  return union(base.map((ref) => rest.reduce(join, ref)));
}
/** What a variable holds for good: its initializer, or the one plain assignment of an `var a;`. */
function initializer(binding: Binding): NodePath | null {
  const declarator = binding.path as NodePath<Node & { type: 'VariableDeclarator' }>;
  const init = declarator.node.init;
  if (binding.constant) return init ? (declarator.get('init') as NodePath) : null;
  if (init || binding.constantViolations.length !== 1) return null;
  const assignment = binding.constantViolations[0]!;
  const node = assignment.node;
  if (node.type !== 'AssignmentExpression' || node.operator !== '=' || node.left.type !== 'Identifier') return null;
  return assignment.get('right') as NodePath;
}

/** The property keys from a declarator's pattern down to one bound name: `{ a: { b: x } }` → [a, b]. */
function patternKeys(pattern: Node, target: Node): string[] | null {
  if (pattern === target) return [];
  switch (pattern.type) {
    case 'AssignmentPattern': // `{ now = fallback } = Date`: the default only applies when absent
      return patternKeys(pattern.left, target);
    case 'RestElement': // `{ a, ...rest } = crypto`: rest holds crypto's other members
      return patternKeys(pattern.argument, target);
    case 'ObjectPattern':
      for (const property of pattern.properties) {
        if (property.type === 'RestElement') {
          const keys = patternKeys(property, target);
          if (keys !== null) return keys;
          continue;
        }
        const key = keyName(property.key, property.computed);
        const keys = patternKeys(property.value, target);
        if (keys !== null) return key === null ? null : [key, ...keys];
      }
      return null;
    default:
      return null;
  }
}

export function keyName(key: Node, computed: boolean): string | null {
  if (!computed && key.type === 'Identifier') return key.name;
  if (key.type === 'StringLiteral') return key.value;
  return null;
}

function resolveCall(
  path: NodePath<Node & { type: 'CallExpression' }>,
  depth: number,
  budget: Budget,
): readonly string[] {
  const args = path.node.arguments;
  const callee = path.get('callee') as NodePath;
  if (callee.node.type === 'Import') return moduleArgument(args); // `import('node:crypto')`
  const fns = resolveAt(callee, depth + 1, budget);
  if (fns.includes(REQUIRE) || fns.includes('module.require')) return moduleArgument(args);
  if (fns.includes('node:module.createRequire')) return [REQUIRE];
  if (args.length >= 1 && callee.node.type === 'Identifier' && INTEROP.test(callee.node.name)) {
    return resolveAt(path.get('arguments.0') as NodePath, depth + 1, budget);
  }
  // `const root = detectRoot()`, where detectRoot returns `window`, `global` or `globalThis`.
  const fn = localFunction(callee);
  return fn === null ? NONE : union(...returned(fn).map((value) => resolveAt(value, depth + 1, budget)));
}

/** The object literal an expression is, or a variable holds for good; null when it is not one. */
function objectLiteral(path: NodePath): NodePath<Node & { type: 'ObjectExpression' }> | null {
  const held = path.isIdentifier() ? heldValue(path) : path;
  return held?.isObjectExpression() ? held : null;
}

/** The value of a literal's property (the last one of that key); none when it has no plain value there. */
function literalMember(
  literal: NodePath<Node & { type: 'ObjectExpression' }>,
  key: string,
  depth: number,
  budget: Budget,
): readonly string[] {
  const properties = literal.get('properties');
  for (let i = properties.length - 1; i >= 0; i--) {
    const property = properties[i]!;
    const node = property.node;
    if (node.type === 'SpreadElement' || keyName(node.key, node.computed) !== key) continue;
    return property.isObjectProperty() ? resolveAt(property.get('value') as NodePath, depth + 1, budget) : NONE;
  }
  return NONE;
}

/**
 * The function a callee names: a declaration, or a variable holding a function for good; not async, not a
 * generator.
 */
function localFunction(
  callee: NodePath,
): NodePath<Node & { type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression' }> | null {
  if (!callee.isIdentifier()) return null;
  const binding = callee.scope.getBinding(callee.node.name);
  const held = binding?.kind === 'hoisted' ? (binding.constant ? binding.path : null) : heldValue(callee);
  if (!held || !(held.isFunctionDeclaration() || held.isFunctionExpression() || held.isArrowFunctionExpression()))
    return null;
  return held.node.async || held.node.generator ? null : held;
}

/** What a plain variable (not a pattern) holds for good. */
function heldValue(name: NodePath<Node & { type: 'Identifier' }>): NodePath | null {
  const binding = name.scope.getBinding(name.node.name);
  if (!binding || (binding.kind !== 'var' && binding.kind !== 'let' && binding.kind !== 'const')) return null;
  if (!binding.path.isVariableDeclarator() || binding.path.node.id !== binding.identifier) return null;
  return initializer(binding);
}

// The return values of each function, found once: a call to it may be resolved many times.
const RETURNS = new WeakMap<Node, readonly NodePath[]>();

/** The expressions a function returns: its arrow body, or each `return` argument outside nested functions. */
function returned(
  fn: NodePath<Node & { type: 'FunctionDeclaration' | 'FunctionExpression' | 'ArrowFunctionExpression' }>,
): readonly NodePath[] {
  const body = fn.get('body') as NodePath;
  if (!body.isBlockStatement()) return [body];
  let values = RETURNS.get(fn.node);
  if (!values) {
    const found: NodePath[] = [];
    body.traverse({
      Function: (inner) => inner.skip(),
      ReturnStatement: (statement) => {
        if (statement.node.argument) found.push(statement.get('argument') as NodePath);
      },
    });
    RETURNS.set(fn.node, (values = found));
  }
  return values;
}

function moduleArgument(args: readonly Node[]): readonly string[] {
  const first = args[0];
  const module = first?.type === 'StringLiteral' ? builtin(first.value) : null;
  return module === null ? NONE : [module];
}
/** `node:crypto` for `crypto` and `node:crypto`; null for anything that is not a builtin module. */
function builtin(specifier: string): string | null {
  const name = specifier.startsWith('node:') ? specifier.slice(5) : specifier;
  return BUILTINS.has(name) || BUILTINS.has(specifier) ? rewrite(`node:${name}`) : null;
}

function join(base: string, key: string): string {
  return rewrite(base === GLOBAL ? key : `${base}.${key}`);
}

/** Applies `REWRITES` to the front of a reference until none applies. */
export function rewrite(ref: string): string {
  for (let round = 0; round < REWRITES.length; round++) {
    const rule = REWRITES.find(([from]) => ref === from || ref.startsWith(`${from}.`));
    if (!rule) return ref;
    const rest = ref.slice(rule[0].length);
    ref = rule[1] === '' ? rest.replace(/^\./, '') : rule[1] + rest;
  }
  return ref;
}

/** The references of several lists, each once, at most `MAX_ALTERNATIVES`. */
function union(...lists: readonly (readonly string[])[]): readonly string[] {
  return [...new Set(lists.flat())].slice(0, MAX_ALTERNATIVES);
}
