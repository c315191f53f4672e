/**
 * The hook calls nothing a program can replace (tracer/primordials.ts): a program that replaces the
 * built-ins' methods, getters and global bindings, puts a `prepareStackTrace` on its own `Error`,
 * traps on `Object.prototype` or a species on `Promise` sees no call of the hook's, in every mode,
 * and runs as it runs without the hook. Each runs in a real child process under the real hook.
 */
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { bytesOf, elementSize, StringReplaceAll, StringSplit } from '../../tracer/primordials.js';
import type { Chunk } from '../../tracer/reader.js';
import { filePathOf } from '../../tracer/stack.js';
import { eventsOf, FIXTURES, project, REPO, runHooked, runPlain, siteOf, type HookedRun } from '../helpers.js';

const PROBE_PACKAGES = {
  'node_modules/draws/package.json': { name: 'draws', version: '1.2.3', main: 'index.js' },
  'node_modules/draws/index.js':
    'module.exports = (n) => { let s = 0; for (let i = 0; i < n; i++) s += Math.random(); return s; };\n',
  'node_modules/@scope/draw/package.json': { name: '@scope/draw', version: '0.1.0', type: 'module', main: 'index.js' },
  'node_modules/@scope/draw/index.js': 'export const draw = () => Math.random() + Date.now();\n',
};

/** The probe (fixtures/probe-builtins.mjs) in a project of its own; it prints what the hook called last. */
function probeProject(): string {
  const dir = project(PROBE_PACKAGES);
  copyFileSync(join(FIXTURES, 'probe-builtins.mjs'), join(dir, 'probe.mjs'));
  return dir;
}

const HOOK_DIR = join(REPO, 'dist');

function noted(run: { stdout: string }): unknown {
  return JSON.parse(run.stdout.trimEnd().split('\n').at(-1)!);
}

function assertClean(run: HookedRun, plainStdout: string): void {
  assert.equal(run.stderr, '', 'no error of the hook, no ERR_DETDRIFT line');
  assert.equal(run.code, 0);
  assert.deepEqual(noted(run), {}, "the hook's own calls that reached the program's replacements");
  assert.equal(run.stdout, plainStdout);
}

test("a program that replaces every built-in's methods, getters and global bindings sees no call of the hook's, and the hook records all of it", () => {
  const dir = probeProject();
  const plain = runPlain(['probe.mjs', HOOK_DIR], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual(noted(plain), {});
  const hooked = runHooked(['probe.mjs', HOOK_DIR], { cwd: dir });
  assertClean(hooked, plain.stdout);
  // what the hook did under the replacements: sites in both packages, past a chunk, every family
  const trace = hooked.traces.get('0')!;
  assert.ok(trace.events.length > 10_000, 'past the first chunk');
  assert.equal(siteOf(trace, eventsOf(trace, 'Math.random')[0]!)?.package, 'draws@1.2.3');
  assert.equal(siteOf(trace, eventsOf(trace, 'Date.now')[0]!)?.package, '@scope/draw@0.1.0');
  for (const api of [
    'Date.now',
    'performance.now',
    'process.hrtime',
    'crypto.randomUUID',
    'crypto.getRandomValues',
    'fs.readdir',
    'fs.opendir',
    'setTimeout',
    'process.stdout',
  ]) {
    assert.ok(eventsOf(trace, api).length > 0, `${api} recorded`);
  }
  assert.deepEqual(
    eventsOf(trace, 'fs.writeFile').map((event) => (event.value as Chunk).head),
    ['out.txt', 'out.txt', 'out.txt', 'out two.txt'],
    'whole-file writes, each once (appendFileSync writes through writeFileSync), a URL named by its decoded path',
  );
  assert.equal(trace.ending.complete, true, 'the end record, written from the exit listener under the replacements');
  assert.ok(hooked.traces.has('0.1'), 'the child process has its trace');
});

for (const [mode, env] of [
  ['control', { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '7' }],
  [
    'perturb (dir-order:shuffle)',
    {
      DETDRIFT_MODE: 'perturb',
      DETDRIFT_SEED: '7',
      DETDRIFT_PERTURB: 'dir-order:shuffle,timers,clock:resolution,cpus,hostname,tmpdir',
    },
  ],
  ['perturb (dir-order:case)', { DETDRIFT_MODE: 'perturb', DETDRIFT_SEED: '7', DETDRIFT_PERTURB: 'dir-order:case' }],
] as const) {
  test(`the same program in ${mode} mode: no call of the hook's reaches it`, () => {
    const dir = probeProject();
    const hooked = runHooked(['probe.mjs', HOOK_DIR], { cwd: dir, env });
    assert.equal(hooked.stderr, '');
    assert.equal(hooked.code, 0);
    assert.deepEqual(noted(hooked), {});
  });
}

test("the same program replayed from a recording that holds its bytes: no call of the hook's reaches it, and it is fed", () => {
  const dir = probeProject();
  const recorded = runHooked(['probe.mjs', HOOK_DIR], { cwd: dir, env: { DETDRIFT_HOLD: 'bytes' } });
  assert.deepEqual(noted(recorded), {});
  const replayed = runHooked(['probe.mjs', HOOK_DIR], {
    cwd: dir,
    env: { DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: recorded.traceDir },
  });
  assert.deepEqual({ stderr: replayed.stderr, code: replayed.code }, { stderr: '', code: 0 });
  assert.deepEqual(noted(replayed), {});
  const draws = eventsOf(replayed.traces.get('0')!, 'Math.random');
  assert.deepEqual(
    draws.map((event) => event.value),
    eventsOf(recorded.traces.get('0')!, 'Math.random').map((event) => event.value),
    'every draw fed from the recording',
  );
});

test("a program's own Error with a prepareStackTrace: the hook never calls it, takes no stacks from then on and says so once", () => {
  // Node asks the global Error for a prepareStackTrace before the realm's own, on every capture
  const program = `
    import { readdirSync } from 'node:fs';
    let calls = 0;
    globalThis.Error = class extends Error {
      static prepareStackTrace(error, frames) { calls++; return 'mine'; }
    };
    let sum = 0;
    for (let i = 0; i < 100; i++) sum += Math.random() + process.pid;
    readdirSync('.');
    console.log('prepareStackTrace calls', calls, sum > 0);
  `;
  const dir = project({ 'app.mjs': program });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  assert.equal(plain.stdout, 'prepareStackTrace calls 0 true\n');
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.equal(hooked.stdout, plain.stdout);
  assert.match(
    hooked.stderr,
    /^detdrift: ERR_DETDRIFT_STACK: the program's global Error does not take its prepareStackTrace from the realm's Error, or the stack settings are accessors \(call sites are no longer taken; values are still recorded\)\n$/,
  );
  const trace = hooked.traces.get('0')!;
  assert.equal(eventsOf(trace, 'Math.random').length, 100, 'values are still recorded');
  assert.equal(eventsOf(trace, 'fs.readdir').length, 1, 'an fs call of an unknown caller counts as the program');
});

test("a program's own Error subclass on globalThis, without a prepareStackTrace of its own: sites are taken as before", () => {
  const program = `
    globalThis.Error = class AppError extends Error {};
    console.log(Math.random() < 1);
  `;
  const dir = project({ 'app.mjs': program });
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.deepEqual({ stdout: hooked.stdout, stderr: hooked.stderr }, { stdout: 'true\n', stderr: '' });
  const trace = hooked.traces.get('0')!;
  assert.equal(siteOf(trace, eventsOf(trace, 'Math.random')[0]!)?.file, 'app.mjs');
});

test('traps and descriptor fields on Object.prototype: the wrappers and the hook never look there', () => {
  // a Proxy handler looks up a trap it lacks on its prototype, and defineProperty reads get, set
  // and value from the descriptor's: both are the hook's objects, both cut from Object.prototype
  const program = `
    import { readdir } from 'node:fs';
    import { promisify } from 'node:util';
    import { randomBytes } from 'node:crypto';
    const looked = [];
    for (const key of ['get', 'set', 'value', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'getPrototypeOf', 'construct', 'writable', 'enumerable', 'configurable']) {
      Object.defineProperty(Object.prototype, key, { __proto__: null, get() { looked.push(key); return undefined; }, configurable: true });
    }
    const seen = [setTimeout.name, Object.keys(readdir).length, typeof readdir[promisify.custom], 'bigint' in process.hrtime, process.stdout.isTTY === true];
    process.stdout.write('');
    for (const key of ['get', 'set', 'value', 'has', 'ownKeys', 'getOwnPropertyDescriptor', 'defineProperty', 'deleteProperty', 'getPrototypeOf', 'construct', 'writable', 'enumerable', 'configurable']) {
      delete Object.prototype[key];
    }
    console.log(JSON.stringify({ looked, seen, bytes: randomBytes(2).length }));
  `;
  const dir = project({ 'app.mjs': program });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.deepEqual(
    { stdout: hooked.stdout, stderr: hooked.stderr, code: hooked.code },
    { stdout: plain.stdout, stderr: '', code: 0 },
  );
});

test("a program's species on Promise: the promise its readdir hands back is Node's, and the hook builds nothing of the program's", () => {
  // the hook settles an fs promise through `then`, which makes its promise with the species it finds
  const program = `
    import { readdir } from 'node:fs/promises';
    let built = 0;
    class Mine extends Promise { constructor(executor) { built++; super(executor); } }
    Object.defineProperty(Promise, Symbol.species, { get: () => Mine, configurable: true });
    const listing = readdir('.');
    const names = await listing;
    console.log(built, listing instanceof Mine, listing.constructor === Promise, names.includes('app.mjs'));
  `;
  const dir = project({ 'app.mjs': program });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  // Node's own fs/promises builds the species too (its `then`): the hooked run must build no more
  assert.match(plain.stdout, /^\d+ false true true\n$/, plain.stderr);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.deepEqual({ stdout: hooked.stdout, stderr: hooked.stderr }, { stdout: plain.stdout, stderr: '' });
  assert.equal(eventsOf(hooked.traces.get('0')!, 'fs.readdir').length, 1, 'the listing is recorded');
});

test("the hook's own reads: a package.json that starts with a BOM names its package; a write inside another write is its own", () => {
  const program = `
    import { appendFileSync, writeFileSync } from 'node:fs';
    import dep from 'dep';
    dep();
    // Node reads the options' encoding while the outer write runs: the inner write is the program's own
    let reads = 0;
    const options = { get encoding() { reads++; writeFileSync('inner.txt', 'inner'); return 'utf8'; } };
    writeFileSync('outer.txt', 'outer', options);
    appendFileSync('outer.txt', '!');
    console.log(reads);
  `;
  const dir = project({
    'app.mjs': program,
    'node_modules/dep/package.json': '\ufeff{ "name": "dep", "version": "2.0.0", "main": "index.js" }\n',
    'node_modules/dep/index.js': 'module.exports = () => Math.random();\n',
  });
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.deepEqual({ code: hooked.code, stderr: hooked.stderr }, { code: 0, stderr: '' });
  const trace = hooked.traces.get('0')!;
  assert.equal(siteOf(trace, eventsOf(trace, 'Math.random')[0]!)?.package, 'dep@2.0.0');
  const reads = Number(hooked.stdout);
  assert.ok(reads > 0, 'Node read the encoding');
  assert.deepEqual(
    eventsOf(trace, 'fs.writeFile').map((event) => (event.value as Chunk).head),
    ['outer.txt', ...Array<string>(reads).fill('inner.txt'), 'outer.txt'],
  );
});

test('filePathOf reads a file: URL as fileURLToPath does, and refuses what it refuses', () => {
  for (const path of ['/a/b.js', '/with space/é#?%.mjs', '/100%/x', '/a/b%2Fc']) {
    const url = pathToFileURL(path).href;
    assert.equal(filePathOf(url), fileURLToPath(url), url);
  }
  for (const url of [
    'file:///a/mod.mjs?t=123',
    'file:///a/mod.mjs#part',
    'file:///a/mod.mjs?q#f',
    'file:///a/mod.mjs#f?q',
  ]) {
    assert.equal(filePathOf(url), fileURLToPath(url), url);
  }
  for (const url of ['file:///a%2Fb/c.js', 'file://host/share/x.js', 'file:///bad%E0%A4%A']) {
    assert.throws(() => fileURLToPath(url), Error, url);
    assert.equal(filePathOf(url), null, url);
  }
});

test('a module imported with a query names its site by its file; a removed working directory stops nothing', () => {
  const program = `
    import { mkdirSync, rmdirSync, writeFileSync } from 'node:fs';
    import { join } from 'node:path';
    const { draw } = await import('./mod.mjs?t=' + Date.now());
    draw();
    const gone = join(process.cwd(), 'gone');
    mkdirSync(gone);
    process.chdir(gone);
    rmdirSync(gone);
    writeFileSync(join(gone, '..', 'after.txt'), 'absolute');
    try { writeFileSync('relative.txt', 'refused'); } catch (error) { console.log(error.code); }
    console.log(Math.random() < 1);
  `;
  const dir = project({ 'app.mjs': program, 'mod.mjs': 'export const draw = () => Math.random();\n' });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  assert.equal(plain.stdout, 'ENOENT\ntrue\n', plain.stderr);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.deepEqual({ stdout: hooked.stdout, stderr: hooked.stderr }, { stdout: plain.stdout, stderr: '' });
  const trace = hooked.traces.get('0')!;
  const draws = eventsOf(trace, 'Math.random');
  assert.equal(siteOf(trace, draws[0]!)?.file, 'mod.mjs');
  assert.equal(draws.length, 2, 'recording went on past the removed directory');
  assert.deepEqual(
    eventsOf(trace, 'fs.writeFile').map((event) => (event.value as Chunk).head),
    ['after.txt'],
    'the relative write Node refused is not recorded',
  );
  assert.equal(trace.ending.complete, true);
});

test('StringSplit and StringReplaceAll cut and join as split and join do', () => {
  for (const [text, separator] of [
    ['a/b/c', '/'],
    ['', '/'],
    ['/', '/'],
    ['a//b', '/'],
    ['no separator', '/'],
    ['a\\b\\c', '\\'],
    ['x--y--', '--'],
  ]) {
    assert.deepEqual(StringSplit(text!, separator!), text!.split(separator!), `${text} by ${separator}`);
    assert.equal(StringReplaceAll(text!, separator!, '+'), text!.split(separator!).join('+'));
  }
});

test('bytesOf gives the bytes of any view over the same memory; elementSize its element', () => {
  const buffer = new ArrayBuffer(8);
  const words = new Uint16Array(buffer, 2, 2);
  words[0] = 0x0201;
  const bytes = bytesOf(words);
  assert.deepEqual([bytes.byteOffset, bytes.length, bytes[0], bytes[1]], [2, 4, 1, 2]);
  const buf = Buffer.from('ab');
  assert.equal(bytesOf(buf), buf, 'a Uint8Array (a Buffer is one) is its own bytes');
  const view = new DataView(buffer, 1, 3);
  assert.deepEqual([bytesOf(view).byteOffset, bytesOf(view).length], [1, 3]);
  assert.deepEqual(
    [elementSize(words), elementSize(view), elementSize(new Float64Array(1)), elementSize(new Float64Array(0))],
    [2, 1, 8, 8],
  );
});
