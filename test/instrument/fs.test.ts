import assert from 'node:assert/strict';
import fs from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Recorder } from '../../instrument/recorder.js';
import { canDefer } from '../../instrument/deferred.js';
import { fsState, install, installPromises } from '../../instrument/fs.js';
import type { TraceEvent } from '../../tracer/reader.js';
import {
  assertSameAsPlain,
  project,
  REPO,
  runHooked,
  runPlain,
  siteOf,
  type HookedRun,
  type Trace,
} from '../helpers.js';

/** A directory of several files and a subdirectory, with fixed modification times. */
const DATA = { 'data/b.txt': 'b', 'data/a.txt': 'a', 'data/c.txt': 'c', 'data/sub/x.txt': 'x', 'data/sub/y.txt': 'y' };

function dataProject(files: Record<string, string | object>): string {
  const dir = project({ ...DATA, ...files });
  ['a', 'b', 'c'].forEach((name, i) => fs.utimesSync(join(dir, 'data', `${name}.txt`), 1000 * (i + 1), 1000 * (i + 1)));
  return dir;
}

function traceOf(run: HookedRun): Trace {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return run.traces.get('0')!;
}

/** Each fs event as [api, form, value, line of its call site]. */
function fsEvents(trace: Trace): Array<[string, string, unknown, number | undefined]> {
  return trace.events
    .filter((event: TraceEvent) => event.family === 'fs')
    .map((event) => [event.api, event.form, event.value, siteOf(trace, event)?.line]);
}

test('readdir in every form records the names in the order the program got them, at the call site', () => {
  const dir = dataProject({
    'app.mjs': [
      "import fs, { readdirSync } from 'node:fs';",
      "import { readdir } from 'node:fs/promises';",
      "import path from 'node:path';",
      'const got = [readdirSync("data")];',
      'got.push(await readdir("data"));',
      'got.push(await new Promise((resolve, reject) => fs.readdir("data", (error, names) => (error ? reject(error) : resolve(names)))));',
      'got.push(fs.readdirSync("data", { withFileTypes: true }).map((entry) => entry.name));',
      'got.push((await fs.promises.readdir("data", { withFileTypes: true })).map((entry) => entry.name));',
      'got.push(fs.readdirSync("data", { recursive: true }));',
      'got.push(await new Promise((resolve) => fs.readdir("data", { recursive: true }, (error, names) => resolve(names))));',
      'got.push((await readdir("./data", { recursive: true, withFileTypes: true })).map((entry) => path.join(path.relative("data", entry.parentPath), entry.name)));',
      'got.push(fs.readdirSync("data", { encoding: "buffer" }).map(String));',
      'got.map((names) => names.sort().reverse()); // the trace keeps what the program got, not its later edits',
      'console.log(JSON.stringify([fs.promises.readdir === readdir]));',
    ].join('\n'),
  });
  const run = runHooked(['app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  assert.equal(run.stdout, '[true]\n');
  const flat = ['a.txt', 'b.txt', 'c.txt', 'sub'];
  const deep = [...flat, 'sub/x.txt', 'sub/y.txt'];
  assert.deepEqual(fsEvents(trace), [
    ['fs.readdir', 'sync', flat, 4],
    ['fs.readdir', 'promise', flat, 5],
    ['fs.readdir', 'callback', flat, 6],
    ['fs.readdir', 'sync', flat, 7],
    ['fs.readdir', 'promise', flat, 8],
    ['fs.readdir', 'sync', deep, 9],
    ['fs.readdir', 'callback', deep, 10],
    ['fs.readdir', 'promise', deep, 11],
    ['fs.readdir', 'sync', flat, 12],
  ]);
  assert.equal(siteOf(trace, trace.events.find((event) => event.family === 'fs')!)?.file, 'app.mjs');
});

test('opendir in every form, then each entry read by read(), readSync() and for await, in order', () => {
  const dir = dataProject({
    'app.mjs': [
      "import fs from 'node:fs';",
      "import path from 'node:path';",
      'const sync = fs.opendirSync("data"); const got = { readSync: [], callback: [], promise: [], forAwait: [], entries: [], recursive: [] };',
      '',
      'for (let entry = sync.readSync(); entry !== null; entry = sync.readSync()) got.readSync.push(entry.name);',
      'sync.closeSync();',
      'const viaCallback = await new Promise((resolve) => fs.opendir("data", (error, opened) => resolve(opened)));',
      '',
      'await new Promise((resolve) => { const next = () => viaCallback.read((error, entry) => { if (entry === null) return resolve(); got.callback.push(entry.name); next(); }); next(); });',
      'await viaCallback.close();',
      'const viaPromise = await fs.promises.opendir("data");',
      '',
      'for (let entry = await viaPromise.read(); entry !== null; entry = await viaPromise.read()) got.promise.push(entry.name);',
      'await viaPromise.close();',
      '',
      'for await (const entry of await fs.promises.opendir("data")) got.forAwait.push(entry.name);',
      '',
      'const last = fs.opendirSync("data");',
      'for await (const entry of last.entries()) got.entries.push(entry.name);',
      'const deep = fs.opendirSync("data", { recursive: true });',
      'for (let entry = deep.readSync(); entry !== null; entry = deep.readSync()) got.recursive.push(path.join(path.relative("data", entry.parentPath), entry.name));',
      'deep.closeSync(); // an unclosed Dir warns when it is garbage collected',
      'console.log(JSON.stringify(got));',
    ].join('\n'),
  });
  const run = runHooked(['app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  const got = JSON.parse(run.stdout) as Record<string, string[]>;
  // opendir order is the file system's own: expect what the program saw, whatever it was.
  const reads = (names: string[], line: number) => [...names, null].map((name) => ['fs.opendir', 'read', name, line]);
  assert.equal(got.readSync!.length, 4);
  assert.equal(got.recursive!.length, 6);
  assert.deepEqual(fsEvents(trace), [
    ['fs.opendir', 'sync', null, 3],
    ...reads(got.readSync!, 5),
    ['fs.opendir', 'callback', null, 7],
    ...reads(got.callback!, 9),
    ['fs.opendir', 'promise', null, 11],
    ...reads(got.promise!, 13),
    ['fs.opendir', 'promise', null, 16],
    ...reads(got.forAwait!, 16),
    ['fs.opendir', 'sync', null, 18],
    ...reads(got.entries!, 19),
    ['fs.opendir', 'sync', null, 20],
    ...reads(got.recursive!, 21),
  ]);
});

test('stat, lstat and fstat in callback, sync and promise forms record mtimeMs as the fs.stat family', () => {
  const dir = dataProject({
    'app.mjs': [
      "import fs from 'node:fs';",
      'const fd = fs.openSync("data/c.txt", "r");',
      'const got = [fs.statSync("data/a.txt").mtimeMs, fs.lstatSync("data/b.txt").mtimeMs, fs.fstatSync(fd).mtimeMs];',
      'got.push(await new Promise((resolve) => fs.stat("data/a.txt", (error, stats) => resolve(stats.mtimeMs))));',
      'got.push(await new Promise((resolve) => fs.lstat("data/b.txt", { bigint: false }, (error, stats) => resolve(stats.mtimeMs))));',
      'got.push(await new Promise((resolve) => fs.fstat(fd, (error, stats) => resolve(stats.mtimeMs))));',
      'got.push((await fs.promises.stat("data/a.txt")).mtimeMs, (await fs.promises.lstat("data/b.txt")).mtimeMs);',
      'got.push(Number(fs.statSync("data/a.txt", { bigint: true }).mtimeMs), fs.statSync("data/none", { throwIfNoEntry: false }) ?? null);',
      'fs.closeSync(fd);',
      'console.log(JSON.stringify(got));',
    ].join('\n'),
  });
  const run = runHooked(['app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  assert.deepEqual(JSON.parse(run.stdout), [1e6, 2e6, 3e6, 1e6, 2e6, 3e6, 1e6, 2e6, 1e6, null]);
  assert.deepEqual(fsEvents(trace), [
    ['fs.stat', 'sync', 1e6, 3],
    ['fs.stat', 'sync', 2e6, 3],
    ['fs.stat', 'sync', 3e6, 3],
    ['fs.stat', 'callback', 1e6, 4],
    ['fs.stat', 'callback', 2e6, 5],
    ['fs.stat', 'callback', 3e6, 6],
    ['fs.stat', 'promise', 1e6, 7],
    ['fs.stat', 'promise', 2e6, 7],
    ['fs.stat', 'sync', 1e6, 8],
    ['fs.stat', 'sync', null, 8],
  ]);
});

test('a readdir in a node_modules dependency is attributed to name@version; loading modules records nothing', () => {
  const dir = dataProject({
    'app.cjs': [
      "const list = require('lister');",
      "require('./local.json'); require('deep');",
      "import('esm-dep').then(({ value }) => console.log(JSON.stringify([list('data'), value])));",
    ].join('\n'),
    'local.json': { ok: true },
    'node_modules/lister/package.json': { name: 'lister', version: '2.0.1', main: 'index.js' },
    'node_modules/lister/index.js':
      "const fs = require('fs');\nmodule.exports = function list(dir) {\n  return fs.readdirSync(dir);\n};\n",
    'node_modules/deep/package.json': { name: 'deep', version: '1.0.0', main: 'lib' },
    'node_modules/deep/lib/index.js': 'module.exports = 1;\n',
    'node_modules/esm-dep/package.json': { name: 'esm-dep', version: '3.0.0', type: 'module', exports: './main.js' },
    'node_modules/esm-dep/main.js': "export { value } from './value.js';\n",
    'node_modules/esm-dep/value.js': 'export const value = 42;\n',
  });
  const run = runHooked(['app.cjs'], { cwd: dir });
  const trace = traceOf(run);
  assert.equal(run.stdout, '[["a.txt","b.txt","c.txt","sub"],42]\n');
  const events = trace.events.filter((event) => event.family === 'fs');
  assert.equal(events.length, 1, 'require and import use bindings, not the fs exports');
  const frames = trace.sites.get(events[0]!.site)!.frames;
  assert.deepEqual(frames[0], {
    file: 'lister@2.0.1/index.js',
    line: 3,
    column: 13,
    fn: 'list',
    package: 'lister@2.0.1',
  });
  assert.deepEqual([frames[1]!.file, frames[1]!.line, frames[1]!.package], ['app.cjs', 3, null]);
});

test("Node's own calls through the fs exports (cp, rm, glob, realpath) are not recorded; promisify is the program's", () => {
  const dir = dataProject({
    'app.mjs': [
      "import fs from 'node:fs';",
      "import { promisify } from 'node:util';",
      'fs.cpSync("data", "copy1", { recursive: true });',
      'await fs.promises.cp("data", "copy2", { recursive: true });',
      'await new Promise((resolve) => fs.cp("data", "copy3", { recursive: true }, resolve));',
      'fs.rmSync("copy1", { recursive: true });',
      'await fs.promises.rm("copy2", { recursive: true });',
      'await new Promise((resolve) => fs.rm("copy3", { recursive: true }, resolve));',
      'await new Promise((resolve) => fs.realpath("data/a.txt", resolve));',
      'if (fs.globSync) fs.globSync("data/**");',
      'if (fs.promises.glob) for await (const found of fs.promises.glob("data/*")) void found;',
      'console.log(JSON.stringify(await promisify(fs.readdir)("data")));',
    ].join('\n'),
  });
  const run = runHooked(['--no-warnings', 'app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  assert.deepEqual(fsEvents(trace), [['fs.readdir', 'callback', JSON.parse(run.stdout), 12]]);
});

test('the program gets exactly what it got without the hook: values, errors, callbacks, functions', () => {
  const dir = dataProject({
    'transparent.mjs': `
      import fs, { readdirSync, opendirSync } from 'node:fs';
      import fsp from 'node:fs/promises';
      const show = (label, value) => console.log(label, JSON.stringify(value));
      const describe = (error) => error && [error.constructor.name, error.code, error.message, error.errno, error.syscall, error.path];
      const throws = (label, fn) => { try { show(label, fn()); } catch (error) { show(label, describe(error)); } };
      const settles = async (label, fn) => { try { show(label, await fn()); } catch (error) { show(label, describe(error)); } };
      const called = (label, call) => new Promise((resolve) => call(function (...args) {
        show(label, [this === undefined, args.length, describe(args[0]), args.slice(1).map((value) => value?.constructor?.name)]);
        resolve(args[1]);
      }));
      const fns = [fs.readdir, fs.readdirSync, fsp.readdir, fs.opendir, fs.opendirSync, fsp.opendir, fs.stat, fs.lstatSync,
        fs.fstat, fsp.stat, fs.Dir.prototype.read, fs.Dir.prototype.readSync, fs.Dir.prototype.entries];
      show('functions', fns.map((fn) => [fn.name, fn.length, String(fn), typeof fn.prototype]));
      show('descriptor', { ...Object.getOwnPropertyDescriptor(fs, 'readdirSync'), value: undefined });
      show('identity', [fs.promises === fsp, readdirSync === fs.readdirSync, opendirSync === fs.opendirSync,
        fs.Dir.prototype[Symbol.asyncIterator] === fs.Dir.prototype.entries]);
      const dirents = readdirSync('data', { withFileTypes: true });
      show('dirents', [Array.isArray(dirents), dirents.map((d) => [d instanceof fs.Dirent, Object.keys(d), d.isFile()])]);
      throws('readdirSync missing', () => readdirSync('missing'));
      throws('readdirSync bad path', () => readdirSync(42));
      throws('readdir no callback', () => fs.readdir('data'));
      throws('recursive not boolean', () => readdirSync('data', { recursive: 'yes' }));
      throws('opendirSync missing', () => opendirSync('missing'));
      throws('statSync missing', () => fs.statSync('missing'));
      await called('readdir callback', (cb) => fs.readdir('data', cb));
      await called('readdir callback missing', (cb) => fs.readdir('missing', cb));
      await called('readdir callback null options', (cb) => fs.readdir('data', null, cb));
      await called('opendir callback missing', (cb) => fs.opendir('missing', cb));
      await called('stat callback missing', (cb) => fs.stat('missing', cb));
      await settles('fsp.readdir missing', () => fsp.readdir('missing'));
      await settles('fsp.opendir missing', () => fsp.opendir('missing'));
      await settles('fsp.lstat missing', () => fsp.lstat('missing'));
      const opened = await fsp.opendir('data');
      const iterator = opened.entries();
      show('iterator', [Object.prototype.toString.call(iterator), iterator[Symbol.asyncIterator]() === iterator, String(iterator.next)]);
      const order = [];
      for await (const entry of iterator) { order.push(entry.name); if (order.length === 2) break; }
      show('dir order', order);
      await settles('read after break', () => opened.read());
      throws('readSync after break', () => opened.readSync());
      await called('read callback after close', (cb) => { try { opened.read(cb); } catch (error) { cb(error); } });
      const again = opendirSync('data');
      show('read callback', [await called('read entry', (cb) => again.read(cb)) instanceof fs.Dirent]);
      again.closeSync();
      // The hook's caller check sets and restores the stack settings without calling the program's formatter.
      let formatted = 0;
      Error.stackTraceLimit = 4;
      Error.prepareStackTrace = (error, frames) => 'custom ' + ++formatted + ' ' + frames.length;
      readdirSync('data'); fs.statSync('data');
      show('stack settings', [formatted, Error.stackTraceLimit, new Error('x').stack]);
      Error.prepareStackTrace = undefined;
      process.exitCode = 3;
    `,
  });
  const hooked = assertSameAsPlain(['transparent.mjs'], { cwd: dir }, 3);
  assert.ok(hooked.traces.get('0')!.events.some((event) => event.family === 'fs'));
});

test('an unhandled rejection from fs.promises.readdir still crashes the program with the same output', () => {
  const dir = project({
    'unhandled.mjs': "import { readdir } from 'node:fs/promises';\nconsole.log('start');\nreaddir('missing-dir');\n",
  });
  const plain = runPlain(['unhandled.mjs'], { cwd: dir });
  const hooked = runHooked(['unhandled.mjs'], { cwd: dir });
  assert.equal(plain.code, 1);
  assert.match(plain.stderr, /ENOENT/);
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
});

test('a stack taken under a wrapper holds one detdrift frame more, and Node still points at the same line', () => {
  const dir = project({
    'sync.mjs': "import { readdirSync } from 'node:fs';\nreaddirSync('missing-dir');\n",
    'callback.mjs': "import fs from 'node:fs';\nfs.readdir('.', () => {\n  throw new Error('boom');\n});\n",
  });
  // The hook runs as one bundled script (scripts/bundle-hook.mjs): every frame of ours is in it.
  const cases = [
    ['sync.mjs', /^ {4}at Object\.apply \(file:\/\/.*\/dist\/instrument\/bundle\.js:\d+:\d+\)$/],
    ['callback.mjs', /^ {4}at recordThenCall \(file:\/\/.*\/dist\/instrument\/bundle\.js:\d+:\d+\)$/],
  ] as const;
  // An enabled async hook (the recorder's context tracker, not this family) routes native
  // callbacks through Node's callbackTrampoline, which then shows in callback stacks too.
  const trampoline = /^ {4}at FSReqCallback\.callbackTrampoline \(node:internal\/async_hooks:\d+:\d+\)$/;
  for (const [file, ours] of cases) {
    const plain = runPlain([file], { cwd: dir });
    const hooked = runHooked([file], { cwd: dir });
    assert.equal(hooked.code, plain.code);
    const lines = hooked.stderr.split('\n');
    assert.equal(lines.filter((line) => ours.test(line)).length, 1, hooked.stderr);
    // The source line Node prints above the error is still the program's or Node's own, not the wrapper's.
    assert.equal(lines.filter((line) => !ours.test(line) && !trampoline.test(line)).join('\n'), plain.stderr);
  }
});

test('uninstall puts back every descriptor it replaced, and a second install is refused', () => {
  const targets = [fs, fs.promises, fs.Dir.prototype];
  const snapshot = () =>
    targets.map((target) => Reflect.ownKeys(target).map((key) => [key, Reflect.getOwnPropertyDescriptor(target, key)]));
  const before = snapshot();
  const events: unknown[] = [];
  const recorder = {
    on: true,
    site: () => 0,
    list: (...args: unknown[]) => events.push(args),
    number: () => {},
    string: () => {},
    fail: () => {},
  };
  const original = fs.readdirSync;
  const originalPromise = fs.promises.readdir;
  const state = fsState(recorder as unknown as Recorder);
  const handles = [install(state), installPromises(state)];
  assert.throws(() => install(state), { code: 'ERR_DETDRIFT_INSTALLED' });
  assert.throws(() => installPromises(state), { code: 'ERR_DETDRIFT_INSTALLED' });
  assert.notEqual(fs.readdirSync, original);
  assert.notEqual(fs.promises.readdir, originalPromise);
  fs.readdirSync(REPO);
  assert.equal(events.length, 1);
  for (const handle of handles.reverse()) handle.uninstall();
  assert.deepEqual(snapshot(), before);
});

// On Node 22 and 24 the promise forms wait for the program to reach `node:fs/promises` (deferred.ts).
test('fs.promises reached only through the fs exports or getBuiltinModule still records; fs alone never loads it', {
  skip: !canDefer && 'families install up front where module.registerHooks is missing',
}, () => {
  const writes = (trace: Trace) => trace.events.filter((event) => event.api === 'fs.writeFile').length;
  const readdir = (access: string) => `const promises = ${access};
    const names = await promises.readdir('data');
    await promises.writeFile('out.txt', names.join());
    console.log(names.length);`;
  const dir = dataProject({
    'exports.cjs': `(async () => { ${readdir("require('fs').promises")} })();`,
    'named.mjs': `import { promises as fsPromises } from 'node:fs'; ${readdir('fsPromises')}`,
    'builtin.cjs': `(async () => { ${readdir("process.getBuiltinModule('node:fs/promises')")} })();`,
    'sync.cjs': `const fs = require('fs');
      fs.readdirSync('data');
      fs.writeFileSync('out.txt', 'x');
      console.log(process.moduleLoadList.includes('NativeModule internal/fs/promises'));`,
  });
  for (const file of ['exports.cjs', 'named.mjs', 'builtin.cjs']) {
    const run = runHooked([file], { cwd: dir });
    const trace = traceOf(run);
    assert.equal(run.stdout, '4\n', file);
    assert.deepEqual(fsEvents(trace), [['fs.readdir', 'promise', ['a.txt', 'b.txt', 'c.txt', 'sub'], 2]], file);
    assert.equal(writes(trace), 1, file);
  }
  const run = runHooked(['sync.cjs'], { cwd: dir });
  const trace = traceOf(run);
  assert.deepEqual(fsEvents(trace), [['fs.readdir', 'sync', ['a.txt', 'b.txt', 'c.txt', 'sub'], 2]]);
  assert.equal(writes(trace), 1);
  assert.equal(run.stdout, 'false\n', 'the program never reached node:fs/promises');
});
