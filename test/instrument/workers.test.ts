import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventsOf, project, REPO, runHooked, runPlain, type HookedRun } from '../helpers.js';

/**
 * A worker that draws `count` values with Math.random, keeping each in shared memory as it gets
 * it, then, by `mode`: waits for messages (`idle`), spins without a call (`spin`), draws on with
 * other calls in between (`loop`, up to a million values), calls process.exit(3) (`exit`), or ends
 * (`end`); `big` first records an event larger than a chunk. After its draws, it posts the names
 * in its workerData.
 */
const WORKER = `
  import { parentPort, workerData } from 'node:worker_threads';
  import { randomUUID } from 'node:crypto';
  import { checkpoint } from ${JSON.stringify(join(REPO, 'dist', 'index.js'))};
  const { shared, mode, count } = workerData;
  const made = new Int32Array(shared, 0, 1);
  const values = new Float64Array(shared, 8);
  const draw = () => { values[made[0]] = Math.random(); made[0]++; };
  if (mode === 'big') checkpoint('x'.repeat(3 << 20), 'a label larger than a chunk');
  for (let i = 0; i < count; i++) draw();
  if (mode === 'exit') process.exit(3);
  if (mode !== 'end') parentPort.postMessage(Object.keys(workerData).join());
  if (mode === 'idle' || mode === 'big') parentPort.on('message', () => {});
  if (mode === 'spin') for (;;);
  if (mode === 'loop') for (let i = 0; ; i++) {
    if (made[0] < 1e6) draw(); else for (;;);
    if (i % 7 === 0) Date.now();
    if (i % 13 === 0) randomUUID();
  }
`;

/**
 * The parent: starts the worker, and on its message terminates it (\`terminate\`) or exits itself
 * (\`exit\`); on the worker's end (\`end\`) or its own exit, it writes the values the worker drew to
 * values.bin and prints how the worker ended and what the program saw of it.
 */
const MAIN = `
  import { Worker } from 'node:worker_threads';
  import { writeFileSync } from 'node:fs';
  const [mode, count, how] = process.argv.slice(2);
  const shared = new SharedArrayBuffer(8 + 8 * 1e6);
  const made = new Int32Array(shared, 0, 1);
  const workerData = { shared, mode, count: Number(count) };
  const worker = new Worker(new URL('./worker.mjs', import.meta.url), { workerData });
  let data = null;
  const report = (code) => {
    writeFileSync('values.bin', new Uint8Array(shared, 8, 8 * made[0]));
    const seen = { exitListeners: worker.listenerCount('exit'), events: worker.eventNames() };
    console.log(JSON.stringify({ code, made: made[0], data, ...seen }));
  };
  worker.on('message', async (message) => {
    data = message;
    if (how === 'exit') {
      process.on('exit', () => report(null));
      process.exit(0);
    }
    report(await worker.terminate());
  });
  worker.on('exit', (code) => how === 'end' && report(code));
`;

interface Ended {
  readonly run: HookedRun;
  /** what the worker's program drew, in order */
  readonly drawn: number[];
  /** the Math.random values in the worker's trace */
  readonly traced: number[];
  readonly printed: { code: number | null; made: number; data: string | null };
}

function runWorker(mode: string, count: number, how: 'terminate' | 'exit' | 'end'): Ended {
  const dir = project({ 'worker.mjs': WORKER, 'main.mjs': MAIN });
  const run = runHooked(['main.mjs', mode, String(count), how], { cwd: dir });
  assert.equal(run.stderr, '');
  const bytes = readFileSync(join(dir, 'values.bin'));
  const drawn = [...new Float64Array(bytes.buffer, bytes.byteOffset, bytes.length / 8)];
  const trace = run.traces.get('0.w1');
  assert.ok(trace, `a trace for the worker: ${[...run.traces.keys()].join(', ')}`);
  assert.equal(trace.ending.truncated, false);
  const traced = eventsOf(trace, 'Math.random').map((event) => event.value as number);
  return { run, drawn, traced, printed: JSON.parse(run.stdout) };
}

test('a worker terminated while idle keeps the 12 calls it recorded', () => {
  const { run, drawn, traced, printed } = runWorker('idle', 12, 'terminate');
  assert.equal(printed.code, 1);
  assert.equal(drawn.length, 12);
  assert.deepEqual(traced, drawn);
  assert.equal(run.traces.get('0.w1')!.ending.complete, false, 'terminated: no end record');
});

test('a worker terminated while spinning after its calls keeps them all, the written chunks and the open one', () => {
  const { drawn, traced } = runWorker('spin', 30_000, 'terminate');
  assert.equal(drawn.length, 30_000);
  assert.deepEqual(traced, drawn);
});

test('a worker terminated in a loop of recorded calls keeps a readable prefix with every call made before', () => {
  const { drawn, traced } = runWorker('loop', 20_000, 'terminate');
  assert.ok(drawn.length >= 20_000);
  // a call the program made has returned, so it was recorded whole: the trace holds it, and at most the one after
  const counts = `${traced.length} traced, ${drawn.length} drawn`;
  assert.ok(traced.length >= drawn.length && traced.length <= drawn.length + 1, counts);
  assert.deepEqual(traced.slice(0, drawn.length), drawn);
});

test("the parent's process.exit() while its worker records keeps every call the worker made", () => {
  const { run, drawn, traced } = runWorker('loop', 20_000, 'exit');
  assert.equal(run.code, 0);
  // the worker still runs while the program's exit listener reports, and is stopped after it
  assert.ok(traced.length >= drawn.length, `${traced.length} traced, ${drawn.length} drawn`);
  assert.deepEqual(traced.slice(0, drawn.length), drawn);
  assert.equal(run.traces.get('0')!.ending.complete, true);
});

test('process.exit() in a worker, and its natural end, still end its trace with an end record', () => {
  for (const [mode, exitCode] of [
    ['exit', 3],
    ['end', 0],
  ] as const) {
    const { run, drawn, traced, printed } = runWorker(mode, 20_000, 'end');
    assert.equal(printed.code, exitCode);
    assert.deepEqual(traced, drawn);
    const { ending } = run.traces.get('0.w1')!;
    assert.deepEqual([ending.complete, ending.exitCode], [true, exitCode], mode);
  }
});

test('an event larger than the memory a worker shares with its parent is kept, and so are the calls after it', () => {
  const { run, drawn, traced } = runWorker('big', 12, 'terminate');
  assert.deepEqual(traced, drawn);
  assert.equal(eventsOf(run.traces.get('0.w1')!, 'checkpoint').length, 1);
});

test('the program sees its Worker as without the hook: its listeners, its workerData, what terminate() gives', () => {
  const dir = project({ 'worker.mjs': WORKER, 'main.mjs': MAIN });
  for (const args of [
    ['idle', '12', 'terminate'],
    ['exit', '5', 'end'],
  ]) {
    const plain = runPlain(['main.mjs', ...args], { cwd: dir });
    const hooked = runHooked(['main.mjs', ...args], { cwd: dir });
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr], `${args}`);
  }
});

test("a program's exit listener still has its workers: a logger's worker flushed on exit (pino's transports)", () => {
  const dir = project({
    'logger.mjs': `
      import { parentPort, workerData } from 'node:worker_threads';
      const flags = new Int32Array(workerData);
      Math.random();
      parentPort.postMessage('up');
      Atomics.wait(flags, 0, 0);
      Atomics.store(flags, 1, 42);
      Atomics.notify(flags, 1);
    `,
    'main.mjs': `
      import { Worker } from 'node:worker_threads';
      const flags = new Int32Array(new SharedArrayBuffer(8));
      const worker = new Worker(new URL('./logger.mjs', import.meta.url), { workerData: flags.buffer });
      worker.once('message', () => {
        worker.unref();
        if (process.argv[2] === 'exit') process.exit(0);
      });
      process.on('exit', () => {
        Atomics.store(flags, 0, 1);
        Atomics.notify(flags, 0);
        Atomics.wait(flags, 1, 0, 10_000); // returns as soon as the worker answers
        console.log('flushed', flags[1]);
      });
    `,
  });
  for (const args of [['main.mjs'], ['main.mjs', 'exit']]) {
    const plain = runPlain(args, { cwd: dir });
    const hooked = runHooked(args, { cwd: dir });
    assert.equal(plain.stdout, 'flushed 42\n');
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr], `${args}`);
  }
});
