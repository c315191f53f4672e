/**
 * `check` interrupted and `check` of a failing command (issue #22): the real CLI in a child
 * process, its temporary folder a test directory (TMPDIR), a kill at a known point without sleeping.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, watch } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Report } from '../../report/types.js';
import { detdrift } from '../cli-fixtures.js';
import { CLI, isRunning, project, runPlain, tempDir, type Run } from '../helpers.js';

const POSIX = { skip: process.platform === 'win32' ? 'process groups and signals are POSIX here' : false };

/**
 * Each run of this program says it started (`started/<pid>`, the first holding crypto bytes it drew,
 * which check keeps for replay), then waits on its stdin, which check never closes: until it is stopped.
 */
const WAITS = `
  const { mkdirSync, writeFileSync } = require('node:fs');
  require('node:crypto').randomBytes(16);
  mkdirSync('started', { recursive: true });
  writeFileSync('started/' + process.pid, '');
  process.stdin.resume();
`;

interface Started {
  readonly done: Promise<Run>;
  readonly pid: number;
  /** resolves with the pid of the command's first run once it has started */
  readonly firstRun: Promise<number>;
}

/** `detdrift check ...` in its own process group (as a shell runs it), TMPDIR set to `tmp`. */
function startCheck(dir: string, tmp: string, args: readonly string[]): Started {
  const child = spawn(process.execPath, [CLI, 'check', ...args], {
    cwd: dir,
    env: { ...process.env, TMPDIR: tmp },
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { done, pid: child.pid!, firstRun: started(join(dir, 'started')) };
}

/** The pid of the first run to write its `started` file: watched, then listed, so none is missed. */
function started(folder: string): Promise<number> {
  mkdirSync(folder, { recursive: true });
  return new Promise((resolve) => {
    const look = () => {
      const [first] = readdirSync(folder);
      if (first === undefined) return;
      watcher.close();
      resolve(Number(first));
    };
    const watcher = watch(folder, look);
    look();
  });
}

/** The work folders of detdrift commands in `tmp` (cli/shared/workdir.ts), not the hook's code cache. */
const ownFolders = (tmp: string) => readdirSync(tmp).filter((name) => /^detdrift-[a-z]+-[0-9a-f]{8}-\d+-/.test(name));

for (const [signal, status, to] of [
  ['SIGINT', 130, 'group'],
  ['SIGTERM', 143, 'check'],
] as const) {
  test(
    `${signal} to ${to === 'group' ? 'the process group (Ctrl-C)' : "check's process alone"} stops the runs, deletes the traces and exits ${status}`,
    POSIX,
    async () => {
      const dir = project({ 'app.cjs': WAITS });
      const tmp = tempDir();
      const check = startCheck(dir, tmp, ['--seed', '7', '--', process.execPath, 'app.cjs']);
      const runPid = await check.firstRun;
      assert.equal(ownFolders(tmp).length, 1, 'the check works in one folder of its own');
      process.kill(to === 'group' ? -check.pid : check.pid, signal);
      const run = await check.done;
      assert.deepEqual([run.code, run.signal], [status, null], run.stderr);
      assert.match(run.stderr, new RegExp(`ERR_INTERRUPTED: interrupted by ${signal}`));
      assert.equal(run.stdout, '', 'no report: the check did not finish');
      assert.equal(isRunning(runPid), false, 'its run was stopped');
      assert.deepEqual(readdirSync(join(dir, 'started')), [String(runPid)], 'no second run started');
      assert.deepEqual(ownFolders(tmp), [], 'the traces, with their held bytes, are gone');
    },
  );
}

test("a SIGKILLed check's traces are deleted by the next check; a running one's are left alone", POSIX, async () => {
  const dir = project({ 'app.cjs': WAITS, 'quick.cjs': 'Math.random();\n' });
  const tmp = tempDir();
  const check = startCheck(dir, tmp, ['--seed', '7', '--', process.execPath, 'app.cjs']);
  await check.firstRun;
  process.kill(-check.pid, 'SIGKILL'); // the check and its run
  await check.done;
  const [left] = ownFolders(tmp);
  assert.ok(left, 'SIGKILL leaves the folder');
  const held = readdirSync(join(tmp, left, 'run-1'));
  assert.ok(held.length > 0, `the killed run's trace is there: ${held}`);
  // A folder of a process still running (this test's) is not the next check's to delete.
  const alive = left.replace(`-${check.pid}-`, `-${process.pid}-`);
  mkdirSync(join(tmp, alive));

  const next = runPlain([CLI, 'check', '--seed', '7', '--', process.execPath, 'quick.cjs'], {
    cwd: dir,
    env: { TMPDIR: tmp },
  });
  assert.equal(next.code, 0, next.stderr);
  assert.deepEqual(ownFolders(tmp), [alive]);
});

test('a command that fails the same way every time is reported as failing, with its stderr, and exits 2', () => {
  const dir = project({ 'package.json': { name: 'app', version: '1.0.0' } });
  const run = detdrift(['check', '--seed', '1', '--', process.execPath, 'missing.js'], dir);
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stdout,
    /^detdrift: the command failed in every run \(exit 1\): a failing command is no check of determinism\n/,
  );
  assert.match(run.stdout, /│ .*Cannot find module .*missing\.js/);
  assert.match(run.stdout, /\n\ndetdrift: the runs agree\n/, 'what the runs did follows');

  const json = detdrift(['check', '--json', '--seed', '1', '--', process.execPath, 'missing.js'], dir);
  assert.equal(json.code, 2, json.stderr);
  const report = JSON.parse(json.stdout) as Report;
  assert.equal(report.verdict, 'agree');
  assert.deepEqual(report.failure?.statuses, [1, 1]);
  assert.ok(
    report.failure!.stderr.some((line) => line.includes('Cannot find module')),
    String(report.failure!.stderr),
  );
});

test('a command that fails in one run only makes the runs diverge, and says which run failed', () => {
  // The second run finds what the first left, and fails.
  const dir = project({
    'package.json': { name: 'app', version: '1.0.0' },
    'app.cjs':
      "const fs = require('node:fs');\nif (fs.existsSync('mark')) { console.error('second run'); process.exit(3); }\nfs.writeFileSync('mark', '');\n",
  });
  const run = detdrift(['check', '--json', '--no-confirm', '--seed', '1', '--', process.execPath, 'app.cjs'], dir);
  assert.equal(run.code, 1, run.stderr);
  const report = JSON.parse(run.stdout) as Report;
  assert.equal(report.verdict, 'diverge');
  assert.deepEqual(report.failure, { statuses: [0, 3], stderr: ['second run'] });
  rmSync(join(dir, 'mark'));
  const text = detdrift(['check', '--no-confirm', '--seed', '1', '--', process.execPath, 'app.cjs'], dir);
  assert.match(text.stdout, /^detdrift: the command failed in run 2 of 2 \(exit 3\)\n {2}│ second run\n/);
});
