import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  project,
  readTrace,
  readTraces,
  REGISTER,
  runHooked,
  runHookedOk,
  runPlain,
  tempDir,
  type Trace,
} from '../helpers.js';

/** Every fixture process runs `child.mjs LABEL`: its trace then says who it is. */
const CHILD = 'Date.now();\nconsole.log(process.argv[2]);\n';

/** lineage → the label the process was started with (or its script), checking each trace on the way. */
function labels(traces: Map<string, Trace>): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, trace] of traces) {
    assert.equal(trace.header.lineage, name);
    assert.equal(trace.ending.complete, true, `${name} ended its trace`);
    const args = trace.header.command.filter((arg) => !arg.startsWith('-'));
    result[name] = args[2] ?? args[1]!;
  }
  return result;
}

test('every way to start a child process names its trace by lineage, the same in two runs', () => {
  const dir = project({
    'child.mjs': CHILD,
    'sub/.keep': '',
    'root.mjs': `
      import { spawn, exec, execFile, fork, spawnSync, execSync, execFileSync } from 'node:child_process';
      const node = JSON.stringify(process.execPath), child = new URL('./child.mjs', import.meta.url).pathname;
      spawnSync(process.execPath, [child, 'spawnSync']);
      execSync(\`\${node} \${child} execSync\`);
      execFileSync(process.execPath, [child, 'execFileSync'], { env: { ...process.env, EXTRA: '1' } });
      // an explicit env that keeps only the hook, and another cwd: the child still writes beside us
      spawnSync(process.execPath, [child, 'minimal'], { cwd: 'sub', env: { PATH: process.env.PATH, NODE_OPTIONS: process.env.NODE_OPTIONS } });
      const closed = (started) => new Promise((resolve) => started.on('close', resolve));
      await Promise.all([
        closed(spawn(process.execPath, [child, 'spawn'])),
        closed(exec(\`\${node} \${child} exec && \${node} \${child} exec-again\`)),
        closed(execFile(process.execPath, [child, 'execFile'])),
        closed(fork(child, ['fork'], { stdio: 'ignore' })),
        closed(spawn(\`\${node} \${child} shell\`, { shell: true })),
      ]);
    `,
  });
  const expected = {
    '0': 'root.mjs',
    '0.1': 'spawnSync',
    '0.2': 'execSync',
    '0.3': 'execFileSync',
    '0.4': 'minimal',
    '0.5': 'spawn',
    '0.6': 'exec', // the shell passes its name on to both node commands: the second is numbered
    '0.6~2': 'exec-again',
    '0.7': 'execFile',
    '0.8': 'fork',
    '0.9': 'shell',
  };
  const first = runHookedOk(['root.mjs'], { cwd: dir });
  assert.deepEqual(labels(first.traces), expected);
  // The second run names its trace directory relatively: children in another cwd still find it.
  const second = runPlain(['root.mjs'], {
    cwd: dir,
    env: { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: 'trace' },
  });
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(labels(readTraces(join(dir, 'trace'))), expected);
  assert.deepEqual(readTraces(join(dir, 'sub', 'trace')).size, 0);
});

test('children started in parallel, and their own children, are named by who started them, not by when they ran', () => {
  const spawnAll = (script: string, label: string) => `
    import { spawn } from 'node:child_process';
    const script = new URL('${script}', import.meta.url).pathname;
    await Promise.all([1, 2, 3].map((n) => new Promise((resolve) =>
      spawn(process.execPath, [script, ${label} + n]).on('close', resolve))));`;
  const dir = project({
    'child.mjs': CHILD,
    'middle.mjs': spawnAll('./child.mjs', "process.argv[2] + '-'"),
    'root.mjs': spawnAll('./middle.mjs', "'c'"),
  });
  const expected: Record<string, string> = { '0': 'root.mjs' };
  for (const c of [1, 2, 3]) {
    expected[`0.${c}`] = `c${c}`;
    for (const g of [1, 2, 3]) expected[`0.${c}.${g}`] = `c${c}-${g}`;
  }
  for (let run = 0; run < 2; run++) {
    const hooked = runHookedOk(['root.mjs'], { cwd: dir });
    assert.deepEqual(labels(hooked.traces), expected, `run ${run + 1}`);
  }
});

test('worker threads are named by the order their parent constructed them; eval workers run no hook', () => {
  const dir = project({
    'child.mjs': CHILD,
    'spawner.mjs':
      "import { spawnSync } from 'node:child_process';\nspawnSync(process.execPath, [new URL('./child.mjs', import.meta.url).pathname, 'from-worker']);\n",
    'nester.mjs':
      "import { Worker } from 'node:worker_threads';\nnew Worker(new URL('./child.mjs', import.meta.url), { argv: ['nested'] });\n",
    'root.mjs': `
      import { Worker } from 'node:worker_threads';
      import { spawnSync } from 'node:child_process';
      class Named extends Worker {}
      const ended = (worker) => new Promise((resolve) => worker.on('exit', resolve));
      const workers = [
        new Worker('Date.now()', { eval: true }),
        new Worker(new URL('./spawner.mjs', import.meta.url)),
        new Named(new URL('./nester.mjs', import.meta.url)),
      ];
      console.log(Worker.prototype.constructor === Worker, workers.every((w) => w instanceof Worker), workers[2] instanceof Named, Worker.name);
      await Promise.all(workers.map(ended));
      spawnSync(process.execPath, [new URL('./child.mjs', import.meta.url).pathname, 'after-workers']);
    `,
  });
  const plain = runPlain(['root.mjs'], { cwd: dir });
  for (let run = 0; run < 2; run++) {
    const hooked = runHooked(['root.mjs'], { cwd: dir });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
    assert.deepEqual(labels(hooked.traces), {
      '0': 'root.mjs',
      '0.1': 'after-workers',
      '0.w2': 'spawner.mjs',
      '0.w2.1': 'from-worker',
      '0.w3': 'nester.mjs',
      '0.w3.w1': 'nested',
    });
  }
});

test('node --test runs each test file in a child named by file order, and a recording the program starts is its own', () => {
  const own = join(tempDir(), 'own-trace');
  const dir = project({
    'child.mjs': CHILD,
    'a.test.mjs': "import { test } from 'node:test';\ntest('a', () => Date.now());\n",
    'b.test.mjs': `import { test } from 'node:test';\nimport { spawnSync } from 'node:child_process';
      const env = { PATH: process.env.PATH, NODE_OPTIONS: process.env.NODE_OPTIONS, DETDRIFT_TRACE: ${JSON.stringify(own)} };
      test('b', () => { spawnSync(process.execPath, ['child.mjs', 'own'], { env }); spawnSync(process.execPath, ['child.mjs', 'ours']); });\n`,
  });
  for (let run = 0; run < 2; run++) {
    const hooked = runHookedOk(['--test', 'a.test.mjs', 'b.test.mjs'], { cwd: dir });
    // The runner itself runs no --import hook: its files are named by file, their children by number.
    assert.deepEqual(labels(hooked.traces), {
      '0.@a_test_mjs': 'a.test.mjs',
      '0.@b_test_mjs': 'b.test.mjs',
      '0.@b_test_mjs.2': 'ours',
    });
  }
  assert.deepEqual(Object.keys(labels(readTraces(own))), ['0', '0~2'], 'a new root each time, in its own directory');
});

test('the child_process functions and Worker take and return what they do without the hook', () => {
  const dir = project({
    'same.cjs': `
      const { spawnSync, execSync, execFileSync } = require('node:child_process');
      const node = process.execPath;
      console.log([spawnSync, execSync, execFileSync].map((fn) => [fn.name, fn.length, String(fn).slice(0, 30)]));
      console.log(execSync('echo $INHERITED', { env: Object.create({ INHERITED: 'from the prototype' }), encoding: 'utf8' }));
      console.log(execFileSync(node, { input: 'console.log(2)', encoding: 'utf8' }), spawnSync(node, ['-p', '3']).stdout.toString());
      for (const bad of [() => spawnSync(node, 'x'), () => execSync('true', 'x'), () => spawnSync(node, [], { env: 'x' }).status]) {
        try { console.log(bad()); } catch (error) { console.log(error.code); }
      }
    `,
  });
  const plain = runPlain(['same.cjs'], { cwd: dir });
  const hooked = runHooked(['same.cjs'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
});

test('a trace directory written into run after run never runs out of names: after a thousand, the next run still records', () => {
  const dir = project({ 'child.mjs': CHILD });
  const traceDir = join(tempDir(), 'trace');
  mkdirSync(traceDir);
  // Empty files are names taken as much as traces are; a child's name (`0~5.1`) says nothing of the root's.
  const taken = ['0', ...Array.from({ length: 1000 }, (_, i) => `0~${i + 2}`), '0~5.1', '0~x'];
  for (const name of taken) writeFileSync(join(traceDir, `${name}.ddtrace`), '');
  for (const expected of ['0~1002', '0~1003']) {
    const hooked = runPlain(['child.mjs', expected], {
      cwd: dir,
      env: { NODE_OPTIONS: `--import="${REGISTER}"`, DETDRIFT_TRACE: traceDir },
    });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, `${expected}\n`, '']);
    assert.deepEqual(labels(new Map([[expected, readTrace(join(traceDir, `${expected}.ddtrace`))]])), {
      [expected]: expected,
    });
  }
  assert.equal(readdirSync(traceDir).length, taken.length + 2);
});

test('a DETDRIFT_SPAWN that would leave the trace folder is refused with ERR_DETDRIFT_SPAWN, and no trace is written outside it', () => {
  const dir = project({
    'app.js': "Date.now();\nconsole.log('ran');\n",
  });
  const outside = tempDir('detdrift-outside-');
  const traceDir = join(outside, 'a', 'b', 'trace');
  for (const spawn of ['../../x', '..', '0/../../x', 'a\\b', '0..1', '.0']) {
    const run = runHooked(['app.js'], { cwd: dir, env: { DETDRIFT_TRACE: traceDir, DETDRIFT_SPAWN: spawn } });
    assert.deepEqual([run.code, run.stdout], [0, 'ran\n'], spawn);
    assert.match(run.stderr, /^detdrift: ERR_DETDRIFT_SPAWN: DETDRIFT_SPAWN is .*expected a lineage name/, spawn);
  }
  const written = (readdirSync(outside, { recursive: true }) as string[]).filter((name) => name.endsWith('.ddtrace'));
  assert.deepEqual(written, [], 'no trace anywhere');
  // a lineage name as the hook gives them is still taken
  const run = runHookedOk(['app.js'], {
    cwd: dir,
    env: { DETDRIFT_TRACE: traceDir, DETDRIFT_SPAWN: '0.2~3.@a_test_mjs.w1' },
  });
  assert.deepEqual([...run.traces.keys()], ['0.2~3.@a_test_mjs.w1']);
});
