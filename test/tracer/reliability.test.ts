/**
 * The program always wins (issue #9): a failure inside the hook, its recorder or its trace writer
 * never reaches the traced program. Each fault runs in a real child process, injected for real
 * where the system allows it (a trace directory below a regular file or /proc, a frozen Error, a
 * program that re-enters the hook) and through DETDRIFT_TEST_FAULT where it does not (a full disk,
 * a writer that throws, an install that fails midway). For each: the program's stdout, its own
 * stderr and its exit status equal a run without the hook, and detdrift's one stderr line appears
 * exactly once, with its code.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Control } from '../../tracer/format.js';
import type { Chunk } from '../../tracer/reader.js';
import {
  CLI,
  eventsOf,
  PRELOAD,
  project,
  REGISTER,
  REPO,
  runHooked,
  runHookedOk,
  runPlain,
  siteOf,
  tempDir,
  type Run,
  type Trace,
} from '../helpers.js';

const OUR_LINE = /^detdrift: (ERR_DETDRIFT_[A-Z_]+): .*\n/gm;

/** detdrift's own lines on stderr (their codes), and the rest: what the program wrote itself. */
function splitStderr(stderr: string): { codes: string[]; program: string } {
  const codes = [...stderr.matchAll(OUR_LINE)].map((match) => match[1]!);
  return { codes, program: stderr.replace(OUR_LINE, '') };
}

/** Same stdout, same stderr but for our lines, same exit; our lines are exactly `codes`. */
function assertProgramWins(plain: Run, hooked: Run, codes: readonly string[]): void {
  const { codes: ours, program } = splitStderr(hooked.stderr);
  assert.deepEqual(
    { code: hooked.code, signal: hooked.signal, stdout: hooked.stdout, stderr: program },
    { code: plain.code, signal: plain.signal, stdout: plain.stdout, stderr: plain.stderr },
  );
  assert.deepEqual(ours, codes, hooked.stderr);
}

/** The one trace of a run (lineage 0). */
function rootTrace(run: { traces: Map<string, Trace> }): Trace {
  const trace = run.traces.get('0');
  assert.ok(trace, 'a trace of the root process');
  return trace;
}

/** The byte offset where a trace's events start: after the magic line and the header line. */
function headerBytes(file: string): number {
  const bytes = readFileSync(file);
  return bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;
}

/**
 * A program that touches every family, writes to both streams, exits 3 from a timer and draws
 * from an exit listener of its own: `node work.mjs N` makes N clock reads first.
 */
const WORK = `
  import { randomBytes, randomUUID } from 'node:crypto';
  import { readdirSync } from 'node:fs';
  let reads = 0;
  for (let i = 0; i < Number(process.argv[2] ?? 10); i++) reads += Date.now() > 0 ? 1 : 0;
  console.log('reads', reads, typeof Math.random(), randomBytes(4).length, randomUUID().length);
  console.log('listing', readdirSync('.').includes('work.mjs'));
  console.error('a warning of its own');
  setTimeout(() => { performance.now(); console.log('timer'); process.exitCode = 3; }, 1);
  process.on('exit', (code) => { Date.now(); console.log('exit', code); });
`;

/** A program and what it does without the hook. */
function baseline(files: Record<string, string>, args: readonly string[]): { dir: string; plain: Run } {
  const dir = project(files);
  const plain = runPlain(args, { cwd: dir });
  return { dir, plain };
}

test('a disk that fills up mid-run: one ERR_DETDRIFT_WRITE, the program runs on, the trace is a readable prefix', () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK }, ['work.mjs', '20000']);
  assert.equal(plain.code, 3, plain.stderr);
  // The first chunk (8192 events, a run of doubles: about 66 kB) fits; the second is cut short, as on a full disk.
  const hooked = runHooked(['work.mjs', '20000'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: 'write:100000' } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_WRITE']);
  const trace = rootTrace(hooked);
  assert.deepEqual([trace.ending.complete, trace.ending.truncated, trace.events.length], [false, true, 8192]);
  assert.ok(trace.events.every((event) => event.api === 'Date.now'));
});

test('a disk that is full when the trace ends (in the exit listener): one ERR_DETDRIFT_WRITE, exit status kept', () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK }, ['work.mjs']);
  const whole = runHooked(['work.mjs'], { cwd: dir });
  assertProgramWins(plain, whole, []);
  const header = headerBytes(rootTrace(whole).file);
  // Nothing is flushed before the end: the only chunk, written at exit, finds the disk full.
  const hooked = runHooked(['work.mjs'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: `write:${header + 10}` } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_WRITE']);
  const trace = rootTrace(hooked);
  assert.deepEqual(
    [trace.ending.complete, trace.ending.truncated, trace.ending.truncatedAt, trace.events.length],
    [false, true, header, 0],
  );
});

test('a disk full before the header: one ERR_DETDRIFT_OPEN, the program runs unrecorded and no trace file is left', () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK }, ['work.mjs']);
  const hooked = runHooked(['work.mjs'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: 'write:0' } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_OPEN']);
  assert.equal(hooked.traces.size, 0);
});

test('a trace directory that cannot be made (below a regular file: ENOTDIR): one ERR_DETDRIFT_OPEN', () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK, 'a-file': 'not a directory\n' }, ['work.mjs']);
  const hooked = runHooked(['work.mjs'], { cwd: dir, env: { DETDRIFT_TRACE: join(dir, 'a-file', 'trace') } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_OPEN']);
  assert.match(hooked.stderr, /ENOTDIR/);
});

test('a trace directory below /proc, where recursive mkdir never returns on Node 20 to 24: one ERR_DETDRIFT_OPEN, no hang', {
  skip: !existsSync('/proc/self'),
}, () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK }, ['work.mjs']);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_OPTIONS: `--import="${REGISTER}"`,
    DETDRIFT_TRACE: '/proc/self/detdrift-trace',
  };
  // The hook used to spin here forever: a time limit turns a regression into a failure, not a stuck suite.
  const result = spawnSync(process.execPath, ['work.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 });
  const hooked: Run = { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_OPEN']);
});

// A context of the hook's own lends its Error where the program's is frozen: the stacks are the isolate's.
for (const [name, setup, flags] of [
  ['a program that freezes Error', 'Object.freeze(Error);', []],
  ['node --frozen-intrinsics', '', ['--frozen-intrinsics', '--no-warnings']],
] as const) {
  test(`${name}: call sites are still taken, and the program's stacks are its own`, () => {
    const program = `
      ${setup}
      Date.now();
      console.log(typeof Math.random());
      try { null.f(); } catch (error) { console.log(error instanceof TypeError, error.stack.split('\\n').length); }
    `;
    const { dir, plain } = baseline({ 'app.mjs': program }, [...flags, 'app.mjs']);
    assert.equal(plain.code, 0, plain.stderr);
    // as the CLI loads the hook: under --import, Node freezes the intrinsics before the hook can patch them
    const hooked = runHooked([...flags, 'app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `--require="${PRELOAD}"` } });
    assertProgramWins(plain, hooked, []);
    const trace = rootTrace(hooked);
    const random = eventsOf(trace, 'Math.random')[0]!;
    assert.deepEqual([siteOf(trace, random)?.file, siteOf(trace, random)?.line], ['app.mjs', 4]);
    assert.equal(siteOf(trace, eventsOf(trace, 'Date.now')[0]!)?.line, 3);
  });
}

for (const [name, setup, more] of [
  // V8 reads the getter to format any error's stack: this program makes none
  [
    'a throwing Error.prepareStackTrace getter',
    "Object.defineProperty(Error, 'prepareStackTrace', { get() { throw new Error('no stacks here'); }, set() {}, configurable: true });",
    '',
  ],
] as const) {
  test(`a stack that cannot be taken (${name}): one ERR_DETDRIFT_STACK, values still recorded, without sites`, () => {
    const program = `
      import { readdirSync } from 'node:fs';
      ${setup}
      for (let i = 0; i < 5; i++) Date.now();
      console.log(typeof Math.random(), readdirSync('.').length, process.pid > 0);
      ${more}
      process.exitCode = 4;
    `;
    const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
    assert.equal(plain.code, 4, plain.stderr);
    const hooked = runHooked(['app.mjs'], { cwd: dir });
    assertProgramWins(plain, hooked, ['ERR_DETDRIFT_STACK']);
    const trace = rootTrace(hooked);
    assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 4]);
    assert.equal(eventsOf(trace, 'Date.now').length, 5);
    assert.deepEqual(eventsOf(trace, 'fs.readdir').length, 1);
    assert.ok(
      trace.events.every((event) => event.site === 0),
      'no site after the failure',
    );
  });
}

test('the writer throwing mid-run: one ERR_DETDRIFT_RECORD; the trace keeps every event before it', () => {
  const { dir, plain } = baseline({ 'work.mjs': WORK }, ['work.mjs', '100']);
  const hooked = runHooked(['work.mjs', '100'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: 'record:50' } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_RECORD']);
  const trace = rootTrace(hooked);
  assert.deepEqual([trace.ending.complete, trace.ending.truncated, trace.events.length], [false, false, 49]);
  assert.ok(trace.events.every((event) => event.api === 'Date.now'));
});

test('a view of a detached buffer written to stdout: Node refuses it as without the hook; the hook records the attempt, empty, and goes on', () => {
  const program = `
    Date.now();
    const view = new Uint8Array(8);
    structuredClone(view.buffer, { transfer: [view.buffer] });
    try { process.stdout.write(view); console.log('written', view.length); } catch (error) { console.log('refused', error.code); }
    console.log(typeof Date.now());
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  assert.equal(plain.stdout, 'refused undefined\nnumber\n');
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.equal(eventsOf(trace, 'Date.now').length, 2, 'recording went on');
  assert.deepEqual(
    eventsOf(trace, 'process.stdout').map((event) => (event.value as Chunk).length),
    [0, 'refused undefined\n'.length, 'number\n'.length],
  );
});

test('a throw inside the async hooks: one ERR_DETDRIFT_CONTEXT, never a fatal error', () => {
  // Node ends the process on any throw inside an async hook callback: the hook's must catch their own.
  const program = `
    Math.random();
    for (let i = 0; i < 300; i++) await null;
    // The immediate schedules the timer: a timer and an immediate both scheduled from the main
    // module fire in either order (Node's own race), which no comparison with a plain run survives.
    setImmediate(() => {
      console.log('immediate');
      setTimeout(() => { console.log('timer fired'); Promise.resolve().then(() => console.log('then')); }, 1);
    });
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  assert.equal(plain.code, 0, plain.stderr);
  const hooked = runHooked(['app.mjs'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: 'context:200' } });
  assertProgramWins(plain, hooked, ['ERR_DETDRIFT_CONTEXT']);
  assert.equal(eventsOf(rootTrace(hooked), 'Math.random').length, 1, 'what came before is kept');
  assert.equal(eventsOf(rootTrace(hooked), 'setImmediate').length, 0, 'nothing is recorded after');
});

test('a program that breaks the collections (Map, Set, WeakMap, WeakSet) reaches neither the async hooks nor the wrappers: contexts, timers, directories and sites are recorded', () => {
  // console.log makes the output family wrap the stream's write (patch.ts wrap) after the program
  // ran; the promise setInterval and a Dir keep state per object in the timers and fs families
  const program = `
    import { opendirSync } from 'node:fs';
    import { setInterval as every } from 'node:timers/promises';
    for (const Collection of [Map, Set, WeakMap, WeakSet]) {
      for (const name of ['get', 'set', 'add', 'has', 'delete']) {
        if (name in Collection.prototype) Collection.prototype[name] = function () { throw new Error(name + ' is off limits'); };
      }
    }
    for await (const tick of every(1, 'tick')) { console.log(tick); break; }
    const dir = opendirSync('.');
    console.log(dir.readSync() !== null);
    dir.closeSync();
    setImmediate(() => {
      console.log('immediate');
      setTimeout(() => { console.log('timer fired', Math.random() < 1); Promise.resolve().then(() => console.log('then')); }, 1);
    });
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  assert.equal(plain.code, 0, plain.stderr);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.deepEqual(
    eventsOf(trace, 'setTimeout').map((event) => event.form),
    ['schedule', 'fire'],
  );
  assert.ok(
    eventsOf(trace, 'setInterval').some((event) => event.form === 'fire'),
    'the promise interval fired and was recorded',
  );
  assert.ok(eventsOf(trace, 'fs.opendir').length > 0, 'the Dir read is recorded');
  const [draw] = eventsOf(trace, 'Math.random');
  assert.ok(siteOf(trace, draw!), 'the draw has its site');
  assert.equal(trace.contexts.get(draw!.ctx)?.type, 'Timeout', 'the draw is named by the timer it ran in');
});

test('a program that replaces the array iterator: the async hook never runs it, however many promises it names', () => {
  // a class without a constructor of its own spreads its arguments through the program's iterator
  // (the hook's other calls under replaced built-ins: primordials.test.ts)
  const program = `
    let calls = 0;
    const iterate = Array.prototype[Symbol.iterator];
    Array.prototype[Symbol.iterator] = function () { calls++; return iterate.call(this); };
    for (let i = 0; i < 1000; i++) await null;
    const seen = calls;
    Array.prototype[Symbol.iterator] = iterate;
    console.log('iterator calls', seen);
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  assert.equal(plain.code, 0, plain.stderr);
  assertProgramWins(plain, runHooked(['app.mjs'], { cwd: dir }), []);
});

test('checkpoint() never throws, whatever it is handed: as without the hook, where it does nothing', () => {
  const program = `
    import { checkpoint } from ${JSON.stringify(join(REPO, 'dist', 'index.js'))};
    const deep = JSON.parse('['.repeat(20000) + ']'.repeat(20000));
    checkpoint({ toString() { throw new Error('no label'); } }, 1);
    checkpoint('throwing toJSON', { toJSON() { throw null; } });
    checkpoint('deep', deep);
    checkpoint('bigint', { n: 10n });
    console.log('still here');
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const heads = eventsOf(rootTrace(hooked), 'checkpoint').map((event) => (event.value as { head: string }).head);
  assert.deepEqual(heads, ['(a label that cannot be printed)', 'throwing toJSON', 'deep', 'bigint']);
});

/** What a program can see of the hook's patches: all of it must be as without the hook. */
const LOOK = `
  const kind = (object, key) => { const d = Object.getOwnPropertyDescriptor(object, key); return d ? ('value' in d ? typeof d.value : 'accessor') : 'none'; };
  console.log(kind(Math, 'random'), kind(Date, 'now'), kind(process, 'pid'), kind(globalThis, 'Date'));
  console.log(String(Date.now), String(setTimeout).length, Date.prototype.constructor === Date, Object.hasOwn(process, 'listeners'));
  console.log(process.rawListeners('exit').length, process.rawListeners('SIGTERM').length, Object.hasOwn(process.stdout, 'write'));
  console.log(typeof Date.now(), typeof Math.random());
  // what still shows a patch (transparency.test.ts): V8 quotes the wrapper's source here
  try { Reflect.construct(Date.now, []); } catch (error) { console.log(error.message); }
`;

// 9: the last install where families wait for their builtins (Node 22 and 24), the ninth of 17 on Node 20
for (const step of [1, 6, 9]) {
  test(`an install that fails at step ${step}: one ERR_DETDRIFT_PATCH, everything patched before is undone, no trace file`, () => {
    const { dir, plain } = baseline({ 'look.mjs': LOOK }, ['look.mjs']);
    const hooked = runHooked(['look.mjs'], { cwd: dir, env: { DETDRIFT_TEST_FAULT: `install:${step}` } });
    assertProgramWins(plain, hooked, ['ERR_DETDRIFT_PATCH']);
    assert.equal(hooked.traces.size, 0);
  });
}

test('the install fault is honest: the same look at a hooked run differs from the plain one', () => {
  const { dir, plain } = baseline({ 'look.mjs': LOOK }, ['look.mjs']);
  const hooked = runHooked(['look.mjs'], { cwd: dir });
  assert.notEqual(hooked.stdout, plain.stdout, 'the probe can see a patch');
});

test('calls from exit listeners after the trace ended land, and the end record carries the status the run exits with', () => {
  const program = `
    Date.now();
    process.on('exit', () => { for (let i = 0; i < 10000; i++) Date.now(); process.exitCode = 9; });
    process.on('exit', () => { Math.random(); console.log('late'); });
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  assert.equal(plain.code, 9);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 9]);
  assert.deepEqual([eventsOf(trace, 'Date.now').length, eventsOf(trace, 'Math.random').length], [10001, 1]);
  assert.equal(eventsOf(trace, 'process.exit')[0]!.value, 0, 'the exit event keeps the code the exit began with');
});

// Re-entrancy and recursion (issue #9, item 5).

test("the program's code called from inside the recorder (Object.prototype.toJSON while sites are written) is not recorded and breaks nothing", () => {
  // Site definitions are serialized with JSON.stringify, which calls a toJSON the program put on
  // Object.prototype; its clock reads used to re-enter the writer mid-chunk and corrupt the trace.
  const program = `
    let calls = 0;
    Object.defineProperty(Object.prototype, 'toJSON', { value() { calls++; Date.now(); Math.random(); return this; }, configurable: true, writable: true });
    for (let i = 0; i < 3; i++) console.log(typeof Date.now(), JSON.stringify({ a: i }));
    globalThis.ownCalls = calls;
    process.on('exit', () => { if (globalThis.ownCalls !== 3) process.exitCode = 7; });
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 0]);
  // the program's 3 reads and its 3 toJSON calls; none from the hook's own serialization
  assert.deepEqual([eventsOf(trace, 'Date.now').length, eventsOf(trace, 'Math.random').length], [6, 3]);
});

test("a program's own JSON.parse never sees the hook reading package.json files", () => {
  const program = `
    import dep from 'dep';
    let parsed = 0;
    const parse = JSON.parse;
    JSON.parse = function (...args) { parsed++; Date.now(); return parse.apply(this, args); };
    dep();
    console.log('parsed by the program', parsed);
  `;
  const files = {
    'app.mjs': program,
    'node_modules/dep/package.json': { name: 'dep', version: '1.2.3', main: 'index.js' },
    'node_modules/dep/index.js': 'module.exports = () => Math.random();\n',
  };
  const dir = project(files);
  const plain = runPlain(['app.mjs'], { cwd: dir });
  assert.equal(plain.stdout, 'parsed by the program 0\n');
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  const [draw] = eventsOf(trace, 'Math.random');
  assert.equal(trace.sites.get(draw!.site)?.frames[0]?.package, 'dep@1.2.3');
  assert.equal(eventsOf(trace, 'Date.now').length, 0);
});

test('a program that replaces Math.random, Date.now and the Date class after the hook: its own functions go unrecorded until it puts ours back', () => {
  const program = `
    const original = Math.random;
    let seed = 1;
    Math.random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
    Date.now = () => 1700000000000;
    class FixedDate extends Date { constructor(...args) { super(...(args.length ? args : [1700000000000])); } }
    globalThis.Date = FixedDate;
    console.log(Math.random(), Math.random(), Date.now(), new Date().getTime(), new Date() instanceof FixedDate);
    Math.random = original;
    console.log(typeof Math.random(), Object.getOwnPropertyDescriptor(Math, 'random').value === original);
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.deepEqual(
    eventsOf(trace, 'Math.random').map((event) => event.control),
    [Control.none],
    'only the original put back',
  );
  assert.equal(eventsOf(trace, 'Date.now').length, 0);
  // FixedDate passes a time to the real constructor: no clock is read, nothing is recorded.
  assert.equal(eventsOf(trace, 'new Date').length, 0);
});

test("assigning now or random through an object that inherits them gives that object its own, and leaves the real ones alone (Vitest's MockDate)", () => {
  const program = `
    class MockDate extends Date {}
    MockDate.now = () => 42;
    const math = Object.create(Math);
    math.random = () => 7;
    console.log(Date.now() !== 42, Math.random() !== 7, MockDate.now(), math.random());
    console.log(JSON.stringify([Object.getOwnPropertyDescriptor(MockDate, 'now'), Object.keys(math)]));
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  assert.deepEqual(
    eventsOf(trace, 'Date.now').map((event) => event.control),
    [Control.none],
    "the real clock, not the subclass's stub",
  );
  assert.deepEqual(
    eventsOf(trace, 'Math.random').map((event) => event.control),
    [Control.none],
  );
});

test('the hook imported twice from two copies of the package runs once: one trace, every call once', () => {
  const copy = tempDir('detdrift-copy-');
  for (const part of ['instrument', 'tracer'])
    cpSync(join(REPO, 'dist', part), join(copy, 'dist', part), { recursive: true });
  cpSync(join(REPO, 'dist', 'index.js'), join(copy, 'dist', 'index.js'));
  writeFileSync(
    join(copy, 'package.json'),
    JSON.stringify({ name: 'detdrift', version: '0.0.0-copy', type: 'module' }),
  );
  const copyRegister = join(copy, 'dist', 'instrument', 'register.js');
  const program = `
    import { checkpoint } from ${JSON.stringify(join(copy, 'dist', 'index.js'))};
    for (let i = 0; i < 3; i++) Date.now();
    checkpoint('done', { ok: true });
    console.log(typeof Math.random());
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  for (const order of [
    [copyRegister, REGISTER],
    [REGISTER, copyRegister],
  ]) {
    const hooked = runHooked(['app.mjs'], {
      cwd: dir,
      env: { NODE_OPTIONS: order.map((file) => `--import="${file}"`).join(' ') },
    });
    assertProgramWins(plain, hooked, []);
    assert.deepEqual([...hooked.traces.keys()], ['0']);
    const trace = rootTrace(hooked);
    assert.deepEqual(
      [
        eventsOf(trace, 'Date.now').length,
        eventsOf(trace, 'Math.random').length,
        eventsOf(trace, 'checkpoint').length,
        trace.ending.complete,
      ],
      [3, 1, 1, true],
    );
  }
});

test("vm: a new context's own Date and Math are recorded, and so is this realm's, run through vm or handed in", () => {
  const program = `
    import vm from 'node:vm';
    const fresh = vm.runInNewContext('Date.now() > 0 && Math.random() < 1 && typeof new Date().getTime()');
    const here = vm.runInThisContext('Date.now() > 0');
    const handed = vm.runInNewContext('now() > 0 && random() < 1', { now: Date.now, random: Math.random });
    console.log(fresh, here, handed);
  `;
  const { dir, plain } = baseline({ 'app.mjs': program }, ['app.mjs']);
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assertProgramWins(plain, hooked, []);
  const trace = rootTrace(hooked);
  // the new context's own: a clock read, a draw, a new Date; runInThisContext's and the handed-in wrappers': 2 and 1
  assert.deepEqual(
    [eventsOf(trace, 'Date.now').length, eventsOf(trace, 'Math.random').length, eventsOf(trace, 'new Date').length],
    [3, 2, 1],
  );
});

test('node:test under the hook, its mock timers included: the same results and exit status', () => {
  const file = `
    import assert from 'node:assert';
    import { test } from 'node:test';
    test('reads the clock', () => assert.ok(Date.now() > 0 && performance.now() >= 0));
    test('waits', async () => { await new Promise((resolve) => setTimeout(resolve, 1)); });
    test('mock timers replace setTimeout and Date, then put ours back', (t) => {
      t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
      let fired = false;
      setTimeout(() => { fired = true; }, 1000);
      t.mock.timers.tick(1000);
      assert.ok(fired);
      assert.equal(Date.now(), 1000);
    });
    test('fails on purpose', () => assert.equal(Math.random() < 1, false));
  `;
  const { dir, plain } = baseline({ 'clock.test.mjs': file }, ['clock.test.mjs']);
  // Durations and pids differ from run to run (TAP's duration_ms lines, the spec reporter's "(1.2ms)"),
  // and `--test` relays a file's stderr (MockTimers' ExperimentalWarning) as `# ` lines wherever
  // they arrive between its stdout lines: those are compared as a set, the rest line by line.
  const pid = (text: string) => text.replace(/\(node:\d+\)/g, '(node:PID)');
  const relayed = /^# \((?:node:PID\) |Use `node --trace-warnings).*\n/gm;
  const stable = (run: Run) => {
    const stdout = pid(run.stdout)
      .replace(/^.*duration_ms.*\n/gm, '')
      .replace(/ \(\d+(?:\.\d+)?ms\)/g, '');
    return [stdout.replace(relayed, ''), (stdout.match(relayed) ?? []).sort()];
  };
  assert.equal(plain.code, 1, plain.stdout);
  for (const args of [['clock.test.mjs'], ['--test', 'clock.test.mjs']]) {
    const reference = args[0] === '--test' ? runPlain(args, { cwd: dir }) : plain;
    const hooked = runHooked(args, { cwd: dir });
    assert.deepEqual(
      [hooked.code, stable(hooked), splitStderr(hooked.stderr).codes],
      [reference.code, stable(reference), []],
      hooked.stderr,
    );
    const trace = [...hooked.traces.values()][0]!;
    assert.ok(eventsOf(trace, 'Math.random').length === 1 && eventsOf(trace, 'Date.now').length >= 1);
  }
});

// Secrets (issue #9, item 4).

const SECRETS = `
  import { randomBytes, randomUUID, getRandomValues } from 'node:crypto';
  import { readFileSync, writeFileSync } from 'node:fs';
  const token = process.env.SECRET_TOKEN;
  const key = readFileSync('key.pem', 'utf8');
  const bytes = randomBytes(32);
  const uuid = randomUUID();
  const values = getRandomValues(new Uint8Array(16));
  writeFileSync('vault.txt', token + key);
  writeFileSync('drawn.json', JSON.stringify({ bytes: bytes.toString('hex'), uuid, values: Buffer.from(values).toString('hex') }));
  console.log('lengths', token.length, key.length, bytes.length, uuid.length, values.length);
`;

test('a trace holds no crypto bytes, environment values or file contents, unless DETDRIFT_HOLD=bytes asks for the bytes', () => {
  const env = { SECRET_TOKEN: 'tok-7f3a9c1e5b2d4f60' };
  const dir = project({
    'app.mjs': SECRETS,
    'key.pem': '-----BEGIN KEY-----MIIEvQIBADANBgkqhkiG9w0B-----END KEY-----\n',
  });
  const secrets = (raw: Buffer) => {
    const drawn = JSON.parse(readFileSync(join(dir, 'drawn.json'), 'utf8')) as {
      bytes: string;
      uuid: string;
      values: string;
    };
    const found = (needle: Buffer) => raw.includes(needle);
    return {
      token: found(Buffer.from(env.SECRET_TOKEN)),
      key: found(Buffer.from('MIIEvQIBADANBgkqhkiG9w0B')),
      bytes: found(Buffer.from(drawn.bytes, 'hex')) || found(Buffer.from(drawn.bytes)),
      uuid: found(Buffer.from(drawn.uuid)),
      values: found(Buffer.from(drawn.values, 'hex')),
    };
  };
  const observed = runHookedOk(['app.mjs'], { cwd: dir, env });
  const trace = rootTrace(observed);
  assert.deepEqual(trace.header.holds, []);
  assert.deepEqual(secrets(readFileSync(trace.file)), {
    token: false,
    key: false,
    bytes: false,
    uuid: false,
    values: false,
  });
  // The check can see them: with DETDRIFT_HOLD=bytes (replay's traces) the drawn values are there.
  const held = runHooked(['app.mjs'], { cwd: dir, env: { ...env, DETDRIFT_HOLD: 'bytes' } });
  const heldTrace = rootTrace(held);
  assert.deepEqual(heldTrace.header.holds, ['bytes']);
  assert.deepEqual(secrets(readFileSync(heldTrace.file)), {
    token: false,
    key: false,
    bytes: true,
    uuid: true,
    values: true,
  });
});

/** A path's permission bits, in octal. */
function permissions(path: string): string {
  return (statSync(path).mode & 0o777).toString(8);
}

test('trace files are written 0600, and the directories the hook or the CLI create 0700', {
  skip: process.platform === 'win32',
}, () => {
  const dir = project({ 'app.mjs': 'Date.now();\n' });
  const base = tempDir('detdrift-modes-');
  const traceDir = join(base, 'made', 'by', 'hook');
  const hooked = runHookedOk(['app.mjs'], { cwd: dir, env: { DETDRIFT_TRACE: traceDir } });
  assert.deepEqual([join(base, 'made'), join(base, 'made', 'by'), traceDir].map(permissions), ['700', '700', '700']);
  assert.equal(permissions(rootTrace(hooked).file), '600');
  const out = join(base, 'made', 'by', 'cli');
  const cli = runPlain([CLI, 'record', '--out', out, '--', process.execPath, 'app.mjs'], { cwd: dir });
  assert.equal(cli.code, 0, cli.stderr);
  assert.deepEqual([permissions(out), permissions(join(out, '0.ddtrace'))], ['700', '600']);
});

test('check deletes its traces (they can hold raw crypto values) unless --keep or --out', () => {
  // Each run prints a fresh random value: the runs diverge, so check also confirms by replay.
  const dir = project({
    'package.json': { name: 'app', version: '1.0.0' },
    'app.mjs': "import { randomBytes } from 'node:crypto';\nconsole.log(randomBytes(4).toString('hex'));\n",
  });
  // what stays is the hook's code cache, the bytecode of detdrift's own code (instrument/register.ts)
  const leftovers = (tmp: string) => readdirSync(tmp).filter((name) => !name.startsWith('detdrift-code-cache-'));
  const plainTmp = tempDir('detdrift-tmp-');
  const plain = runPlain([CLI, 'check', '--seed', '1', '--', process.execPath, 'app.mjs'], {
    cwd: dir,
    env: { TMPDIR: plainTmp },
  });
  assert.equal(plain.code, 1, plain.stderr);
  assert.match(plain.stderr, /confirming by replay/, 'the replay confirmation ran, with its own temporary traces');
  assert.deepEqual(leftovers(plainTmp), [], 'every trace, recorded and replayed, is gone');

  const keptTmp = tempDir('detdrift-tmp-');
  const kept = runPlain([CLI, 'check', '--keep', '--no-confirm', '--', process.execPath, 'app.mjs'], {
    cwd: dir,
    env: { TMPDIR: keptTmp },
  });
  assert.equal(kept.code, 1, kept.stderr);
  const [left] = leftovers(keptTmp);
  assert.ok(left?.startsWith('detdrift-check-'), `kept: ${leftovers(keptTmp).join(', ')}`);
  assert.ok(kept.stderr.includes(join(keptTmp, left)), 'check says where the kept traces are');
  assert.ok(existsSync(join(keptTmp, left, 'run-1', '0.ddtrace')));
  assert.deepEqual([permissions(join(keptTmp, left)), permissions(join(keptTmp, left, 'run-1'))], ['700', '700']);

  const outTmp = tempDir('detdrift-tmp-');
  const out = join(tempDir('detdrift-out-'), 'traces');
  mkdirSync(out);
  const given = runPlain([CLI, 'check', '--out', out, '--no-confirm', '--', process.execPath, 'app.mjs'], {
    cwd: dir,
    env: { TMPDIR: outTmp },
  });
  assert.equal(given.code, 1, given.stderr);
  assert.deepEqual(leftovers(outTmp), []);
  assert.deepEqual(
    [existsSync(join(out, 'run-1', '0.ddtrace')), existsSync(join(out, 'run-2', '0.ddtrace'))],
    [true, true],
  );
});

test('the objects the hook patches stay as fast to use as it found them: none is left a hash table', () => {
  // V8 turns an object whose method becomes an accessor (Math.random) or a function given a dozen
  // properties (an imitated native) into a dictionary, and every lookup on it then costs a probe.
  const dir = project({
    'fast.cjs': [
      "const [crypto, fs, os, timers, timersPromises, childProcess, perfHooks] = ['crypto', 'fs', 'os', 'timers', 'timers/promises', 'child_process', 'perf_hooks'].map(require);",
      'const objects = {',
      '  Math, "Math.random": Math.random, "Date.now": Date.now, "Date.prototype": Date.prototype, performance,',
      '  "Performance.prototype": Object.getPrototypeOf(performance), "process.hrtime": process.hrtime,',
      '  "process.hrtime.bigint": process.hrtime.bigint, crypto, "crypto.randomUUID": crypto.randomUUID,',
      '  "crypto.randomBytes": crypto.randomBytes, webcrypto: globalThis.crypto, "fs.promises": fs.promises, os,',
      '  timers, timersPromises, childProcess, perfHooks,',
      '};',
      '// V8 puts an object used as a prototype back in fast mode at the lookups that follow',
      'for (let i = 0; i < 32; i++) for (const value of Object.values(objects)) void value.length;',
      'console.log(JSON.stringify(Object.keys(objects).filter((name) => !%HasFastProperties(objects[name]))));',
    ].join('\n'),
  });
  const plain = runPlain(['--allow-natives-syntax', 'fast.cjs'], { cwd: dir });
  const hooked = runHooked(['--allow-natives-syntax', 'fast.cjs'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(hooked.code, 0, hooked.stderr);
  const slowWithout = JSON.parse(plain.stdout) as string[];
  const slowWith = JSON.parse(hooked.stdout) as string[];
  assert.deepEqual(
    slowWith.filter((name) => !slowWithout.includes(name)),
    [],
    'left in dictionary mode by the hook',
  );
  assert.ok(!slowWithout.includes('Math'), 'Math is fast without the hook: the check can fail');
});
