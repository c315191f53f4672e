/**
 * The probe of test/instrument/transparency.test.ts: a program that describes, property by property, every
 * built-in the hook patches, as a program can see it (descriptors, own keys, `name`, `length`,
 * `toString`, prototype chain, whether `new` works, identity), and what `Date` and the patched
 * functions do when reflected on, subclassed, replaced and put back. It describes the main realm,
 * a `vm` context of its own and a worker thread, and prints one JSON object.
 */

/** A realm's built-ins the table compares: the label a report names, and how the probe reaches it. */
export const MAIN_ROWS: ReadonlyArray<readonly [string, string]> = [
  ['globalThis', 'globalThis'],
  ['Function.prototype', 'Function.prototype'],
  ['Date', 'Date'],
  ['Date.prototype', 'Date.prototype'],
  ['Math', 'Math'],
  ['Performance.prototype', 'Object.getPrototypeOf(performance)'],
  ['process', 'process'],
  ['EventEmitter.prototype', "load('events').prototype"],
  ['process.hrtime', 'process.hrtime'],
  ['process.stdout', 'process.stdout'],
  [
    'where process.stdout.write is',
    "(() => { let o = process.stdout; while (!Object.hasOwn(o, 'write')) o = Object.getPrototypeOf(o); return o; })()",
  ],
  ['crypto', "load('crypto')"],
  ['Crypto.prototype', 'Object.getPrototypeOf(globalThis.crypto)'],
  ['timers', "load('timers')"],
  ['timers/promises', "load('timers/promises')"],
  ['timers/promises setInterval.prototype', "load('timers/promises').setInterval.prototype"],
  ['scheduler', "Object.getPrototypeOf(load('timers/promises').scheduler)"],
  ['fs', "load('fs')"],
  ['fs.promises', "load('fs').promises"],
  ['Dir.prototype', "load('fs').Dir.prototype"],
  ['os', "load('os')"],
  ['os.hostname', "load('os').hostname"],
  ['os.tmpdir', "load('os').tmpdir"],
  ['vm', "load('vm')"],
  ['vm.Script.prototype', "load('vm').Script.prototype"],
  ['child_process', "load('child_process')"],
  ['ChildProcess.prototype', "load('child_process').ChildProcess.prototype"],
  ['worker_threads', "load('worker_threads')"],
  ['Worker.prototype', "load('worker_threads').Worker.prototype"],
];

/** A `vm` context's own intrinsics the hook patches. */
const INTRINSICS = ['globalThis', 'Function.prototype', 'Date', 'Date.prototype', 'Math'];
export const CONTEXT_ROWS = MAIN_ROWS.filter(([label]) => INTRINSICS.includes(label));

/** What `Date` and the patched functions do, each an expression evaluated in the realm. */
export const BEHAVIOURS: readonly string[] = [
  '[typeof Date(), typeof Date(0), typeof Date.call({}), typeof Date.now.call(undefined), Math.random.call(null) < 1]',
  '[new Date(0) instanceof Date, Object.getPrototypeOf(new Date(0)) === Date.prototype, Date.prototype.constructor === Date]',
  '(() => { class S extends Date {} const s = new S(0); return [Object.getPrototypeOf(s) === S.prototype, s instanceof Date, s.getTime(), Object.getPrototypeOf(S) === Date, typeof new S().getTime()]; })()',
  '(() => { const a = Reflect.construct(Date, [0], Array); return [Object.getPrototypeOf(a) === Array.prototype, Object.prototype.toString.call(a)]; })()',
  '(() => { function L() { return Reflect.construct(Date, [86400000], new.target); } Object.setPrototypeOf(L.prototype, Date.prototype); const l = new L(); return [l.getTime(), Object.getPrototypeOf(l) === L.prototype]; })()',
  'new Date.now()',
  'new Math.random()',
  'Reflect.construct(Date.now, [])',
  'Date.prototype.getTime.call({})',
  '[Date.now === Date.now, Math.random === Math.random, Object.getOwnPropertyDescriptor(Date, "now").value === Date.now]',
  '(() => { class D extends Date {} D.now = () => 42; return [Date.now() !== 42, Object.keys(D)]; })()',
  '(() => { const m = Object.create(Math); m.random = () => 7; return [Math.random() !== 7, Object.keys(m)]; })()',
  '(() => { const saved = Date.now; Date.now = () => 1; const during = Date.now(); Date.now = saved; return [during, Date.now === saved]; })()',
  `(() => {
    const d = Object.getOwnPropertyDescriptor(Math, 'random');
    Object.defineProperty(Math, 'random', { writable: false });
    let threw = 'nothing';
    try { (function () { 'use strict'; Math.random = null; })(); } catch (error) { threw = error.constructor.name + ': ' + error.message; }
    Object.defineProperty(Math, 'random', d);
    return [threw, Math.random === d.value];
  })()`,
  "(() => { const d = Object.getOwnPropertyDescriptor(Date, 'now'); const deleted = delete Date.now; const gone = !('now' in Date); Object.defineProperty(Date, 'now', d); return [deleted, gone]; })()",
];

/**
 * Describes one realm; its source is evaluated in each realm, so it names nothing from outside.
 * `rows` are [label, expression], `behaviours` expressions; `load` is the realm's builtin loader.
 */
function describeRealm(rows: ReadonlyArray<readonly [string, string]>, behaviours: readonly string[]): string {
  const evaluate = globalThis.eval; // indirect: the realm's global scope
  const toText = Function.prototype.toString;
  const known = new Map<unknown, string>();
  for (const name of ['Function', 'Object', 'Array', 'Date', 'Error', 'Promise']) {
    const ctor = (globalThis as unknown as Record<string, { prototype: object }>)[name]!;
    known.set(ctor, name).set(ctor.prototype, `${name}.prototype`);
  }
  known.set(
    Object.getPrototypeOf(async function* () {}),
    'AsyncGeneratorFunction.prototype',
  );
  known.set(Object.getPrototypeOf(async function* () {}.prototype), 'AsyncGenerator.prototype');
  const holders = rows.map(([label, reach]) => [label, evaluate(reach) as object] as const);
  for (const [label, holder] of holders) if (!known.has(holder)) known.set(holder, label);
  const chain = (object: object): string[] => {
    const labels: string[] = [];
    for (
      let proto = Object.getPrototypeOf(object);
      proto !== null && labels.length < 8;
      proto = Object.getPrototypeOf(proto)
    ) {
      labels.push(known.get(proto) ?? (typeof proto === 'function' ? `a function ${proto.name}` : 'an object'));
    }
    return labels;
  };
  const constructs = (fn: Function): boolean => {
    try {
      Reflect.construct(function () {}, [], fn);
      return true;
    } catch {
      return false;
    }
  };
  // A long source as its length and FNV-1a hash: Node's functions print all their code.
  const shortly = (text: string): string => {
    if (text.length <= 80) return text;
    let hash = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
    return `${text.slice(0, 40)}... (${text.length} characters, FNV-1a ${hash.toString(16)})`;
  };
  const fnOf = (fn: Function, depth: number): object => ({
    name: fn.name,
    length: fn.length,
    toString: shortly(Reflect.apply(toText, fn, []) as string),
    chain: chain(fn),
    constructs: constructs(fn),
    keys: Reflect.ownKeys(fn).map(String),
    props: depth > 0 ? propsOf(fn, depth - 1) : undefined,
  });
  const valueOf = (value: unknown, depth: number): unknown =>
    typeof value === 'function'
      ? fnOf(value, depth)
      : typeof value === 'object' && value !== null
        ? { object: known.get(value) ?? chain(value)[0] }
        : typeof value;
  const propsOf = (holder: object, depth: number): Record<string, unknown> => {
    const props: Record<string, unknown> = {};
    for (const key of Reflect.ownKeys(holder)) {
      const { value, get, set, ...attributes } = Reflect.getOwnPropertyDescriptor(holder, key)!;
      const read = () => (holder as Record<PropertyKey, unknown>)[key];
      props[String(key)] =
        'writable' in attributes
          ? { ...attributes, value: valueOf(value, depth), same: read() === read() }
          : { ...attributes, get: get && fnOf(get, 0), set: set && fnOf(set, 0) };
    }
    return props;
  };
  const described: Record<string, unknown> = {};
  // The global's values at one level less: the built-ins under it that the hook patches have rows of their own.
  for (const [label, holder] of holders)
    described[label] = { chain: chain(holder), props: propsOf(holder, holder === globalThis ? 0 : 1) };
  for (const source of behaviours) {
    try {
      described[source] = { value: evaluate(source) };
    } catch (error) {
      described[source] = { threw: `${(error as Error).constructor.name}: ${(error as Error).message}` };
    }
  }
  return JSON.stringify(described);
}

/**
 * Fake timers that come and go before the probe looks (the fake-timer family): sinon's every fake,
 * node:test's mock timers and mock.method, each put back. `realm` is the global of the realm.
 */
export const FAKE_TIMERS = `(realm) => {
  const FakeTimers = require('@sinonjs/fake-timers');
  // a vm context has none of Node's timers: only its Date
  const clock = FakeTimers.withGlobal(realm).install(realm === globalThis ? { now: 1000 } : { now: 1000, toFake: ['Date'] });
  clock.tick(5);
  clock.uninstall();
  if (realm !== globalThis) return;
  const { mock } = require('node:test');
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'setImmediate', 'Date'], now: 1000 });
  mock.timers.tick(5);
  mock.timers.reset();
  mock.method(Math, 'random', () => 0.5);
  mock.method(Date, 'now', () => 42);
  mock.method(performance, 'now', () => 7);
  mock.restoreAll();
}`;

/**
 * The probe program (CommonJS): prints `{ main, context, worker }`. `before`, a function of a
 * realm's global, runs in each realm before it is described.
 */
export function probe(before = '() => {}'): string {
  return `
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const vm = require('node:vm');
globalThis.load = process.getBuiltinModule;
const before = ${before};
const describeRealm = ${describeRealm.toString()};
const MAIN_ROWS = ${JSON.stringify(MAIN_ROWS)};
const CONTEXT_ROWS = ${JSON.stringify(CONTEXT_ROWS)};
const BEHAVIOURS = ${JSON.stringify(BEHAVIOURS)};
before(globalThis);
const main = JSON.parse(describeRealm(MAIN_ROWS, BEHAVIOURS));
if (isMainThread) {
  const context = vm.createContext();
  before(vm.runInContext('this', context));
  const inContext = vm.runInContext('(' + describeRealm + ')(' + JSON.stringify(CONTEXT_ROWS) + ', ' + JSON.stringify(BEHAVIOURS) + ')', context);
  new Worker(__filename).on('message', (worker) => console.log(JSON.stringify({ main, context: JSON.parse(inContext), worker })));
} else {
  parentPort.postMessage(main);
}
`;
}
