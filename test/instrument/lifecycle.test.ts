import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  eventsOf,
  project,
  readTraces,
  REGISTER,
  runHooked,
  runPlain,
  tempDir,
  type Run,
  type Trace,
} from '../helpers.js';

/** A fixture that draws `count` clock values, says `ready`, then waits on stdin until it is killed. */
const untilKilled = (count: number, setup = '') =>
  `${setup}\nfor (let i = 0; i < ${count}; i++) Date.now();\nconsole.log('ready');\nprocess.stdin.resume();\n`;

/**
 * Spawns `node file`, plain or hooked, sends `signal` when the program prints `ready`, and waits
 * for it to end: the kill happens at a known point without sleeping.
 */
function killWhenReady(
  dir: string,
  file: string,
  signal: NodeJS.Signals,
  hooked: boolean,
): Promise<Run & { trace?: Trace }> {
  const traceDir = join(tempDir('detdrift-trace-'), 'trace');
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('DETDRIFT_') && key !== 'NODE_OPTIONS' && key !== 'NODE_TEST_CONTEXT') env[key] = value;
  }
  if (hooked)
    Object.assign(env, { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: traceDir, DETDRIFT_ROOT: dir });
  const child = spawn(process.execPath, [file], { cwd: dir, env });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const waiting = !stdout.includes('ready\n');
    stdout += chunk;
    if (waiting && stdout.includes('ready\n')) child.kill(signal);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, killedBy) => {
      resolve({ code, signal: killedBy, stdout, stderr, trace: hooked ? readTraces(traceDir).get('0') : undefined });
    });
  });
}

function clockValues(trace: Trace): unknown[] {
  return eventsOf(trace, 'Date.now').map((event) => event.value);
}

test('process.exit() midway, an uncaught exception and an unhandled rejection end the trace with their exit code', () => {
  const dir = project({
    'exit.mjs': "Date.now();\nprocess.on('exit', () => Date.now());\nprocess.exit(3);\n",
    'throw.mjs': "Date.now();\nsetImmediate(() => { Date.now(); throw new Error('boom'); });\n",
    'reject.mjs': "Date.now();\nPromise.reject(new Error('nope'));\n",
  });
  for (const [file, events, exitCode] of [
    ['exit.mjs', 2, 3],
    ['throw.mjs', 2, 1],
    ['reject.mjs', 1, 1],
  ] as const) {
    const plain = runPlain([file], { cwd: dir });
    const hooked = runHooked([file], { cwd: dir });
    // TODO(core): an enabled async hook adds a callbackTrampoline frame to uncaught stacks (see report)
    const stderr = hooked.stderr.replace(/^ +at process\.callbackTrampoline .*\n/m, '');
    assert.deepEqual([hooked.code, hooked.signal, stderr], [plain.code, plain.signal, plain.stderr], file);
    assert.equal(hooked.code, exitCode, file);
    const trace = hooked.traces.get('0')!;
    assert.equal(clockValues(trace).length, events, `${file}: every event, the exit listener's too`);
    assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, exitCode], file);
  }
});

/** A fixture that draws `count` clock values, says `ready`, then spins until it is killed. */
const busyUntilKilled = (count: number) =>
  `for (let i = 0; i < ${count}; i++) Date.now();\nconsole.log('ready');\nfor (;;);\n`;

// The hook listens to no signal: a listener of any kind would keep a busy program alive until it
// yields, which a spinning one never does (the timeout turns that into a failure, not a hang).
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  test(`${signal} with no handler of the program's kills it, idle or busy, as without the hook`, {
    timeout: 60_000,
  }, async () => {
    const dir = project({ 'idle.mjs': untilKilled(10), 'busy.mjs': busyUntilKilled(10_000) });
    for (const file of ['idle.mjs', 'busy.mjs']) {
      const plain = await killWhenReady(dir, file, signal, false);
      const hooked = await killWhenReady(dir, file, signal, true);
      assert.deepEqual([plain.code, plain.signal], [null, signal], file);
      assert.deepEqual(
        [hooked.code, hooked.signal, hooked.stdout, hooked.stderr],
        [plain.code, plain.signal, plain.stdout, plain.stderr],
        file,
      );
      // the chunks written before the signal, in call order, and no word of an end
      const values = clockValues(hooked.trace!) as number[];
      assert.equal(values.length, file === 'busy.mjs' ? 8192 : 0, `${file}: whole chunks only`);
      assert.equal(hooked.trace!.ending.complete, false, file);
    }
  });
}

test("a SIGTERM handler of the program's runs and decides: here it finishes its work and exits 5", async () => {
  const setup = `
    console.log(process.listenerCount('SIGTERM'), process.listeners('SIGTERM').length, process.eventNames().includes('SIGTERM'));
    process.on('SIGTERM', () => { Date.now(); console.log('handled'); process.exitCode = 5; process.stdin.destroy(); });`;
  const dir = project({ 'app.mjs': untilKilled(3, setup) });
  const plain = await killWhenReady(dir, 'app.mjs', 'SIGTERM', false);
  const hooked = await killWhenReady(dir, 'app.mjs', 'SIGTERM', true);
  assert.equal(plain.stdout, '0 0 false\nready\nhandled\n');
  assert.deepEqual([hooked.code, hooked.signal, hooked.stdout], [plain.code, plain.signal, plain.stdout]);
  assert.equal(clockValues(hooked.trace!).length, 4, 'the handler ran under the hook');
  assert.deepEqual([hooked.trace!.ending.complete, hooked.trace!.ending.exitCode], [true, 5]);
});

test('the signal-exit pattern (re-raise when only its own listeners are left) still dies by the signal', async () => {
  // signal-exit's logic, inline: it counts process.listeners(sig) against its own registrations.
  const setup = `
    const own = 1;
    const onSignal = (sig) => {
      if (process.listeners(sig).length !== own) return;
      process.removeListener(sig, onSignal);
      Date.now();
      console.log('cleaned up');
      process.kill(process.pid, sig);
    };
    process.on('SIGTERM', onSignal);`;
  const dir = project({ 'app.mjs': untilKilled(3, setup) });
  const plain = await killWhenReady(dir, 'app.mjs', 'SIGTERM', false);
  const hooked = await killWhenReady(dir, 'app.mjs', 'SIGTERM', true);
  assert.deepEqual([plain.code, plain.signal, plain.stdout], [null, 'SIGTERM', 'ready\ncleaned up\n'], plain.stderr);
  assert.deepEqual([hooked.code, hooked.signal, hooked.stdout], [plain.code, plain.signal, plain.stdout]);
  assert.equal(hooked.trace!.ending.complete, false, 'the re-raised signal killed it before the end record');
});

test('SIGKILL after more than one buffer of events leaves a readable prefix, marked incomplete', async () => {
  const dir = project({ 'app.mjs': untilKilled(10_000) });
  const hooked = await killWhenReady(dir, 'app.mjs', 'SIGKILL', true);
  assert.deepEqual([hooked.code, hooked.signal], [null, 'SIGKILL']);
  const values = clockValues(hooked.trace!) as number[];
  assert.ok(values.length >= 8192 && values.length < 10_000, `a whole number of chunks: ${values.length}`);
  assert.ok(
    values.every((value, i) => i === 0 || value >= values[i - 1]!),
    'the prefix is in call order',
  );
  assert.equal(hooked.trace!.ending.complete, false);
});

test('our listeners stay hidden and survive removeAllListeners, and a synthetic signal event kills nothing', () => {
  const dir = project({
    'app.mjs': `
      const fn = () => {};
      process.on('exit', fn);
      console.log(JSON.stringify([process.eventNames(), ['exit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtExceptionMonitor'].map((e) => [process.listenerCount(e), process.listeners(e).length, process.rawListeners(e).length]), process.listenerCount('exit', fn)]));
      process.emit('SIGTERM');
      Date.now();
      process.removeAllListeners('exit');
      process.removeAllListeners();
      console.log(process.eventNames().length, process.listenerCount('exit'));
      Date.now();
      process.exit(4);
    `,
  });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  const hooked = runHooked(['app.mjs'], { cwd: dir });
  assert.equal(plain.code, 4, plain.stderr);
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
  const trace = hooked.traces.get('0')!;
  assert.equal(clockValues(trace).length, 2);
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 4]);
});

test("a pool worker's trace holds every call before the message after which its parent ends it with SIGTERM", async () => {
  // How Vitest's forks pool ends a worker: the worker reports, the pool kills it.
  const dir = project({
    'worker.cjs': "for (let i = 0; i < 10; i++) Date.now();\nprocess.send('done');\nprocess.stdin.resume();\n",
    'pool.cjs': `
      const { fork } = require('node:child_process');
      const worker = fork('worker.cjs', { stdio: ['pipe', 'inherit', 'inherit', 'ipc'] });
      worker.on('message', () => worker.kill('SIGTERM'));
      worker.on('exit', (code, signal) => console.log(code, signal));
    `,
  });
  const plain = runPlain(['pool.cjs'], { cwd: dir });
  const hooked = runHooked(['pool.cjs'], { cwd: dir });
  assert.deepEqual([hooked.code, hooked.stdout], [plain.code, 'null SIGTERM\n'], hooked.stderr);
  const worker = hooked.traces.get('0.1')!;
  assert.equal(clockValues(worker).length, 10, 'written when it sent its message');
  assert.equal(worker.ending.complete, false);
});

test('process.exit(7) called in an exit listener, or an exit code set there before process.exit(), is the code the trace ends with', () => {
  const dir = project({
    'listener.js': "process.on('exit', () => process.exit(7));\nconsole.log('hi');\n",
    'exit-code.js': "process.on('exit', () => { process.exitCode = 9; });\nconsole.log('hi');\nprocess.exit();\n",
  });
  for (const [file, exitCode] of [
    ['listener.js', 7],
    ['exit-code.js', 9],
  ] as const) {
    const plain = runPlain([file], { cwd: dir });
    const hooked = runHooked([file], { cwd: dir });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr], file);
    assert.equal(hooked.code, exitCode, file);
    const trace = hooked.traces.get('0')!;
    assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, exitCode], file);
    // the code `exit` was emitted with, then the one the process exits with
    assert.deepEqual(
      eventsOf(trace, 'process.exit').map((event) => event.value),
      [0, exitCode],
      file,
    );
  }
});

test("a program whose own process.emit drops 'exit': its natural end leaves no end record, process.exit() still ends the trace", () => {
  const swallow =
    "const emit = process.emit;\nprocess.emit = function (name, ...args) { return name === 'exit' ? false : emit.call(this, name, ...args); };\n";
  const dir = project({
    'natural.js': `${swallow}Date.now();\nconsole.log('hi');\n`,
    'explicit.js': `${swallow}Date.now();\nconsole.log('hi');\nprocess.exit(4);\n`,
  });
  const natural = runHooked(['natural.js'], { cwd: dir }).traces.get('0')!;
  // Node's natural end reaches JavaScript through that `emit` alone: the CLI refuses such a run (ERR_UNENDED_TRACE)
  assert.equal(natural.ending.complete, false);
  const explicit = runHooked(['explicit.js'], { cwd: dir });
  assert.equal(explicit.code, 4);
  const trace = explicit.traces.get('0')!;
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode, clockValues(trace).length], [true, 4, 1]);
});
