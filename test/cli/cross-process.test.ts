/**
 * A divergence that crosses a process boundary, through the real CLI: a value drawn in a child
 * process or a worker thread that its parent prints is blamed in the child, named with its process,
 * and confirmed by a replay that pins the child's values; a child whose value never leaves it is not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Report } from '../../report/types.js';
import { appWith, causeOf, detdrift, lineOf, lines, reportOf } from '../cli-fixtures.js';

const check = (dir: string, ...options: string[]) =>
  detdrift(['check', ...options, '--json', '--', process.execPath, 'app.js'], dir);

const EXEC_APP = lines(
  "const { execFileSync } = require('node:child_process');",
  "const drawn = execFileSync(process.execPath, ['child.js']).toString();",
  "console.log('child drew', drawn);",
);
const EXEC_CHILD = lines('process.stdout.write(String(Math.random()));');

const WORKER_APP = lines(
  "const { Worker } = require('node:worker_threads');",
  "const worker = new Worker(require('node:path').join(__dirname, 'worker.js'));",
  "worker.on('message', (drawn) => console.log('worker drew', drawn));",
);
const WORKER = lines(
  "const { parentPort } = require('node:worker_threads');",
  'parentPort.postMessage({ drawn: Math.random() });',
);

const FORK_APP = lines(
  "const { fork } = require('node:child_process');",
  "const child = fork(require('node:path').join(__dirname, 'child.js'));",
  "child.on('message', (drawn) => { console.log('child drew', drawn); child.disconnect(); });",
);
const FORK_CHILD = lines('const drawn = Math.random();', 'process.send(drawn);');

const CASES = [
  { name: 'an execFileSync child writes it', files: { 'app.js': EXEC_APP, 'child.js': EXEC_CHILD }, child: 'child.js' },
  {
    name: "a worker thread's postMessage sends it",
    files: { 'app.js': WORKER_APP, 'worker.js': WORKER },
    child: 'worker.js',
  },
  {
    name: "a forked child's process.send sends it",
    files: { 'app.js': FORK_APP, 'child.js': FORK_CHILD },
    child: 'child.js',
  },
] as const;

/** The cause's process and where it was made, as the report names them. */
function crossed(report: Report) {
  return { process: report.cause?.process?.lineage ?? null, diverged: report.firstDivergence?.process ?? null };
}

for (const { name, files, child } of CASES) {
  test(`a Math.random drawn in another process that the parent prints (${name}): blamed there and confirmed by replay, not "outside"`, () => {
    const dir = appWith(files);
    const report = reportOf(check(dir, '--runs', '2'), 1);
    const line = lineOf(files[child as keyof typeof files], 'Math.random');
    assert.deepEqual(causeOf(report), {
      verdict: 'diverge',
      reason: 'output',
      kind: 'call',
      api: 'Math.random',
      package: null,
      site: `${child}:${line}`,
      firstPartySite: `${child}:${line}`,
      confidence: 'replay-confirmed',
    });
    const lineage = child === 'worker.js' ? '0.w1' : '0.1';
    assert.deepEqual(crossed(report), { process: lineage, diverged: '0' });
    if (child !== 'worker.js') assert.deepEqual(report.cause?.process?.command, ['node', child]);
    assert.deepEqual(
      report.confirmation && { status: report.confirmation.status, pinned: report.confirmation.pinned },
      {
        status: 'confirmed',
        pinned: 1,
      },
    );
    assert.match(report.cause?.rule ?? '', new RegExp(`of process ${lineage.replace('.', '\\.')} reproduces it`));

    // The terminal names the process the call was made in.
    const text = detdrift(['check', '--no-confirm', '--', process.execPath, 'app.js'], dir);
    assert.equal(text.code, 1, text.stderr);
    const where = lineage === '0.w1' ? 'worker thread 0.w1' : `process 0.1 \\(node ${child}\\)`;
    assert.match(text.stdout, new RegExp(`in ${where}, whose value crossed into process 0`));
    assert.match(text.stdout, new RegExp(`at ${child}:${line}:`));

    // Control mode seeds the child's draw too: the runs agree.
    const control = reportOf(check(dir, '--mode', 'control', '--seed', '5'), 0);
    assert.equal(control.verdict, 'agree');
  });
}

test("a child's message found by the rules alone (no replay): the heuristic cause names the child and its process", () => {
  const dir = appWith({ 'app.js': FORK_APP, 'child.js': FORK_CHILD });
  const report = reportOf(check(dir, '--no-confirm'), 1);
  assert.equal(report.cause?.confidence, 'heuristic');
  assert.equal(report.cause?.api, 'Math.random');
  assert.deepEqual(crossed(report), { process: '0.1', diverged: '0' });
  assert.match(report.cause?.rule ?? '', /in process 0\.1, whose message to its parent \(process\.send #1\) differs/);
});

test("a child's draw that never leaves it is not blamed for the parent's output (no false blame)", () => {
  // The parent prints its child's pid, which no hook records; the child draws and sends the same word every run.
  const app = lines(
    "const { fork } = require('node:child_process');",
    "const child = fork(require('node:path').join(__dirname, 'child.js'));",
    "child.on('message', (said) => { console.log(said, 'from', child.pid); child.disconnect(); });",
  );
  const child = lines('const kept = Math.random();', "process.send(kept < 2 ? 'done' : 'never');");
  const dir = appWith({ 'app.js': app, 'child.js': child });
  for (const options of [['--no-confirm'], []]) {
    const report = reportOf(check(dir, ...options), 1);
    assert.equal(report.cause?.kind, 'outside', JSON.stringify(report.cause));
    assert.equal(report.cause?.api, null);
    assert.equal(report.cause?.process ?? null, null);
  }
});

test("control mode: a child's stat time, which replay cannot pin, crosses into the parent: named, and said to be unconfirmed", () => {
  const child = lines(
    "const fs = require('node:fs');",
    "fs.writeFileSync('stamp.txt', 'x');",
    "process.send(fs.statSync('stamp.txt').mtimeMs);",
  );
  const dir = appWith({ 'app.js': FORK_APP, 'child.js': child });
  const report = reportOf(check(dir, '--mode', 'control', '--seed', '5'), 1);
  assert.equal(report.cause?.api, 'fs.stat');
  assert.equal(report.cause?.confidence, 'heuristic');
  assert.equal(`${report.cause?.site?.file}:${report.cause?.site?.line}`, `child.js:${lineOf(child, 'statSync')}`);
  assert.deepEqual(crossed(report), { process: '0.1', diverged: '0' });
  assert.match(report.cause?.rule ?? '', /not confirmed by replay, which pins clock, random and crypto values only/);
});
