/**
 * What the scanner looks for, as data. A reference is a dotted path from a root: a global (`Math`,
 * `process`, `crypto` — the WebCrypto global) or a builtin module (`node:crypto`, `node:fs`). The
 * resolver turns an expression into such a path, `REWRITES` folds the many spellings of one thing
 * into one, and `SITE_TABLE` says which paths, used how, are a call site of which canonical API.
 */

/** How the reference is used at the site. */
export type Use =
  /** called (`f()`, `f?.()`, `f.call(...)`, `f.apply(...)`), or passed as an argument (`promisify(f)`) */
  | 'call'
  /** constructed with no arguments (`new Date()`, `new Date`) */
  | 'new'
  /** read (`process.pid`, `const { pid } = process`) */
  | 'read';

export interface SiteRule {
  readonly ref: string;
  readonly use: Use;
  /** the canonical API name (tracer/apis.ts, DESIGN.md "The report") */
  readonly api: string;
  /**
   * `call` rows only: whether passing the reference as an argument counts as a site (default true).
   * `promisify(fs.readdir)` and `xs.map(Math.random)` do call it; `isInstance(value, Date)` does not.
   */
  readonly passed?: boolean;
}

const calls = (prefix: string, names: readonly string[], api: (name: string) => string): SiteRule[] =>
  names.map((name) => ({ ref: prefix === '' ? name : `${prefix}.${name}`, use: 'call', api: api(name) }));

// Sync and promise forms share the family name (DESIGN.md); `fs.promises` is folded by REWRITES.
const fsFamily = (name: string) => `fs.${name.replace(/Sync$/, '').replace(/^[lf]stat$/, 'stat')}`;

export const SITE_TABLE: readonly SiteRule[] = Object.freeze([
  { ref: 'Date.now', use: 'call', api: 'Date.now' },
  { ref: 'Date', use: 'new', api: 'new Date' },
  { ref: 'Date', use: 'call', api: 'Date()', passed: false },
  { ref: 'performance.now', use: 'call', api: 'performance.now' },
  { ref: 'performance.timeOrigin', use: 'read', api: 'performance.timeOrigin' },
  { ref: 'process.hrtime', use: 'call', api: 'process.hrtime' },
  { ref: 'process.hrtime.bigint', use: 'call', api: 'process.hrtime.bigint' },
  { ref: 'process.uptime', use: 'call', api: 'process.uptime' },
  { ref: 'process.pid', use: 'read', api: 'process.pid' },
  { ref: 'Math.random', use: 'call', api: 'Math.random' },
  // The WebCrypto global (and `require('crypto').webcrypto`, folded onto it), then the module.
  ...calls('crypto', ['randomUUID', 'getRandomValues'], (name) => `crypto.${name}`),
  ...calls(
    'node:crypto',
    ['randomUUID', 'randomBytes', 'randomFill', 'randomFillSync', 'randomInt', 'getRandomValues'],
    (name) => `crypto.${name}`,
  ),
  // Key generation: the module's four, and Web Crypto's (`require('crypto').subtle` folded onto it).
  ...calls('node:crypto', ['generateKey', 'generateKeySync', 'generateKeyPair', 'generateKeyPairSync'], (name) =>
    name.startsWith('generateKeyPair') ? 'crypto.generateKeyPair' : 'crypto.generateKey',
  ),
  { ref: 'crypto.subtle.generateKey', use: 'call', api: 'crypto.generateKey' },
  // A formatter formats the time it was not given: its construction is the nearest site a scan sees.
  { ref: 'Intl.DateTimeFormat', use: 'new', api: 'Intl.DateTimeFormat' },
  ...calls('', ['setTimeout', 'setInterval', 'setImmediate'], (name) => name),
  { ref: 'AbortSignal.timeout', use: 'call', api: 'AbortSignal.timeout' },
  ...calls('node:fs', ['readdir', 'readdirSync', 'opendir', 'opendirSync'], fsFamily),
  ...calls('node:fs', ['stat', 'statSync', 'lstat', 'lstatSync', 'fstat', 'fstatSync'], fsFamily),
  ...calls('node:fs', ['mkdtemp', 'mkdtempSync', 'mkdtempDisposable', 'mkdtempDisposableSync'], () => 'fs.mkdtemp'),
  ...calls('node:os', ['hostname', 'cpus', 'tmpdir'], (name) => `os.${name}`),
] satisfies readonly SiteRule[]);

/**
 * Spellings folded onto one reference, applied to the front of a path until none applies. Roots
 * of the global object disappear; builtin modules that re-export a global become that global.
 */
export const REWRITES: readonly (readonly [from: string, to: string])[] = Object.freeze([
  ['globalThis', ''],
  ['global', ''],
  ['self', ''],
  ['window', ''],
  ['node:process', 'process'],
  ['node:perf_hooks.performance', 'performance'],
  ['node:crypto.webcrypto', 'crypto'],
  ['node:crypto.subtle', 'crypto.subtle'],
  ['node:timers/promises', ''],
  ['node:timers', ''],
  ['node:fs/promises', 'node:fs'],
  ['node:fs.promises', 'node:fs'],
]);

/**
 * The names a site needs in the source text, as whole words (a property, a string key, an import):
 * a file that contains none of them holds no site, and is not parsed. A file with a `\u` escape
 * (which may spell a name) is parsed anyway.
 */
export const TRIGGER = new RegExp(
  `(?<![\\w$])(?:${[...new Set(SITE_TABLE.map((rule) => rule.ref.split('.').pop()!))].join('|')})(?![\\w$])|\\\\u`,
);

/** The rules by `use`, then by reference. */
export const RULES: Readonly<Record<Use, ReadonlyMap<string, SiteRule>>> = Object.freeze({
  call: rulesFor('call'),
  new: rulesFor('new'),
  read: rulesFor('read'),
});

function rulesFor(use: Use): ReadonlyMap<string, SiteRule> {
  return new Map(SITE_TABLE.filter((rule) => rule.use === use).map((rule) => [rule.ref, rule]));
}
