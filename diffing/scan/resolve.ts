/**
 * Resolves an expression to the reference it denotes (`Math.random`, `node:crypto.randomBytes`),
 * following what Babel's scope knows: a name bound by nothing is a global; an import or a
 * `require` of a builtin module is that module; a variable is what it was initialized with (or
 * assigned exactly once, as minifiers write `var a; ... a = require("crypto")`), through
 * destructuring. A parameter, a function, a class, a reassigned variable resolve to nothing: a
 * local `now` or a parameter named `Math` is not the global.
 */
import { builtinModules } from 'node:module';
import type { Binding, NodePath } from '@babel/traverse';
import type { Node } from '@babel/types';
import { REWRITES } from './table.js';

/** The global object (`globalThis`, `global`, `self`, `window`) resolves to the empty path. */
const GLOBAL = '';
const REQUIRE = 'require';
const BUILTINS = new Set(builtinModules);
// Enough for any alias chain a person or a minifier writes; a cycle (`var a = b, b = a`) stops here.
const MAX_DEPTH = 24;
// Interop helpers of Babel, TypeScript and esbuild: `_interopRequireDefault(require("crypto")).default`,
// `__toESM(require("crypto"), 1)`: they hand back the module (or a namespace holding it as `default`).
const INTEROP = /^_*(?:interopRequire(?:Default|Wildcard)|importDefault|importStar|toESM)$/;

export function resolve(path: NodePath, depth = 0): string | null {
  if (depth > MAX_DEPTH) return null;
  const node = path.node;
  switch (node.type) {
    case 'Identifier':
      return resolveName(path, node.name, depth);
    case 'MemberExpression':
    case 'OptionalMemberExpression': {
      const key = propertyName(node);
      if (key === null) return null;
      const object = resolve(path.get('object') as NodePath, depth + 1);
      if (object === null) return null;
      // ESM's default export of a builtin is the module itself (`crypto_1.default.randomBytes`).
      if (key === 'default' && object.startsWith('node:') && !object.includes('.')) return object;
      return join(object, key);
    }
    case 'CallExpression':
      return resolveCall(path as NodePath<Node & { type: 'CallExpression' }>, depth);
    case 'SequenceExpression': // `(0, _crypto.randomBytes)(16)` from transpilers
      return resolve((path.get('expressions') as NodePath[]).at(-1)!, depth + 1);
    case 'ParenthesizedExpression':
    case 'AwaitExpression': // `(await import('node:crypto')).randomUUID`
      return resolve(path.get(node.type === 'AwaitExpression' ? 'argument' : 'expression') as NodePath, depth + 1);
    case 'LogicalExpression': // `globalThis.crypto ?? require('crypto').webcrypto`: both sides agree
    case 'ConditionalExpression': {
      const [a, b] = node.type === 'LogicalExpression' ? ['left', 'right'] : ['consequent', 'alternate'];
      const left = resolve(path.get(a) as NodePath, depth + 1);
      return left !== null && left === resolve(path.get(b) as NodePath, depth + 1) ? left : null;
    }
    default:
      return null;
  }
}

/** The name of a member's property: `a.b`, `a?.b`, `a['b']`, `` a[`b`] ``; null when computed. */
export function propertyName(node: Node): string | null {
  if (node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') return null;
  const property = node.property;
  if (!node.computed) return property.type === 'Identifier' ? property.name : null;
  if (property.type === 'StringLiteral') return property.value.includes('.') ? null : property.value;
  if (property.type === 'TemplateLiteral' && property.expressions.length === 0) return property.quasis[0]!.value.cooked ?? null;
  return null;
}

function resolveName(path: NodePath, name: string, depth: number): string | null {
  const binding = path.scope.getBinding(name);
  if (!binding) return rewrite(name);
  return resolveBinding(binding, depth + 1);
}

function resolveBinding(binding: Binding, depth: number): string | null {
  const declaration = binding.path;
  if (binding.kind === 'module') {
    const source = (declaration.parent as Node & { source?: { value: string } }).source?.value;
    const module = source === undefined ? null : builtin(source);
    if (module === null) return null;
    const node = declaration.node;
    if (node.type !== 'ImportSpecifier') return module; // default and namespace imports
    const imported = node.imported.type === 'Identifier' ? node.imported.name : node.imported.value;
    return imported === 'default' ? module : join(module, imported);
  }
  if (binding.kind !== 'var' && binding.kind !== 'let' && binding.kind !== 'const') return null;
  if (!declaration.isVariableDeclarator()) return null;
  const init = initializer(binding);
  if (init === null) return null;
  const base = resolve(init, depth + 1);
  if (base === null) return null;
  const keys = patternKeys(declaration.node.id, binding.identifier);
  return keys === null ? null : keys.reduce<string | null>((ref, key) => (ref === null ? null : join(ref, key)), base);
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

function resolveCall(path: NodePath<Node & { type: 'CallExpression' }>, depth: number): string | null {
  const args = path.node.arguments;
  const callee = path.get('callee') as NodePath;
  if (callee.node.type === 'Import') return moduleArgument(args); // `import('node:crypto')`
  const fn = resolve(callee, depth + 1);
  if (fn === REQUIRE || fn === 'module.require') return moduleArgument(args);
  if (fn === 'node:module.createRequire') return REQUIRE;
  if (args.length >= 1 && callee.node.type === 'Identifier' && INTEROP.test(callee.node.name)) {
    return resolve(path.get('arguments.0') as NodePath, depth + 1);
  }
  return null;
}

function moduleArgument(args: readonly Node[]): string | null {
  const first = args[0];
  return first?.type === 'StringLiteral' ? builtin(first.value) : null;
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
