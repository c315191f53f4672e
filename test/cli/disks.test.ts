/**
 * Disks and folders (issue #39): a full disk, a read-only --out and an unwritable TMPDIR are said
 * with their own codes, never read as a divergence; a SIGKILLed command's traced program stops
 * filling its trace and the next sweep frees it; one command at a time owns an --out. The real CLI
 * on real file systems: a small tmpfs mounted for the test (root, as CI runs; skipped elsewhere).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { detdrift } from '../cli-fixtures.js';
import { CLI, isRunning, project, tempDir, type Run } from '../helpers.js';

const mounted: string[] = [];
after(() => {
  for (const dir of mounted) {
    spawnSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A tmpfs of `size` (`1m`) mounted on a fresh folder, or null where this process may not mount. */
function tmpfs(size: string, readOnly = false): string | null {
  if (process.platform !== 'linux') return null;
  const dir = mkdtempSync(join(tmpdir(), 'detdrift-tmpfs-')); // not tempDir's: unmounted before it is removed
  const options = `size=${size},mode=0700${readOnly ? ',ro' : ''}`;
  const result = spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  if (result.status !== 0) {
    rmSync(dir, { recursive: true });
    return null;
  }
  mounted.push(dir);
  return dir;
}

const CANNOT_MOUNT = 'mounting a tmpfs needs root (CI runs as root)';
/** Where the hook never notices, the wait for it fails the test instead of hanging the suite. */
const LINUX = {
  skip: process.platform === 'linux' ? false : "reads a process's open files in /proc",
  timeout: 60_000,
};

/** Two megabytes of trace and more: 2 * 10^6 draws. */
const FILLS = 'let sum = 0;\nfor (let i = 0; i < 2e6; i++) sum += Math.random();\nconsole.log(sum > 0);\n';

test('a full disk is ERR_TRACE_WRITE naming the run that lost its trace, never a divergence; record says the disk cut it', async (t) => {
  const disk = tmpfs('1m');
  if (disk === null) return t.skip(CANNOT_MOUNT);
  const dir = project({ 'fill.js': FILLS });
  const run = detdrift(['check', '--runs', '2', '--out', join(disk, 'out'), '--', 'node', 'fill.js'], dir);
  assert.equal(run.code, 3, run.stderr);
  assert.match(run.stderr, /ERR_TRACE_WRITE: the run recorded into \S+\/out\/run-1 lost its trace/);
  assert.match(run.stderr, /ENOSPC: no space left on device.*: the disk is full/);
  assert.doesNotMatch(run.stdout + run.stderr, /diverge|Math\.random/);
  // record leaves the program its stdio: its summary tells the disk from a kill, whether the disk
  // filled up as the run wrote or was full before it began (the check's kept traces fill this one)
  const other = tmpfs('1m');
  assert.ok(other !== null);
  for (const [out, hook] of [
    [other, /^detdrift: ERR_DETDRIFT_WRITE: \S+0\.ddtrace: ENOSPC: no space left on device/m],
    [join(disk, 'record'), /^detdrift: ERR_DETDRIFT_OPEN: cannot write the trace header to \S+: ENOSPC/m],
  ] as const) {
    const recorded = detdrift(['record', '--out', out, '--', 'node', 'fill.js'], dir);
    assert.equal(recorded.code, 0, recorded.stderr);
    assert.match(recorded.stderr, hook);
    assert.match(
      recorded.stderr,
      /; ERR_TRACE_WRITE: the disk holding it has less than 1 MiB free: a full disk stopped/,
    );
  }
});

test('a read-only --out is ERR_OUT_DIR before anything runs', async (t) => {
  const disk = tmpfs('1m', true);
  if (disk === null) return t.skip(CANNOT_MOUNT);
  const dir = project({ 'app.js': 'Math.random();\n' });
  for (const args of [
    ['record', '--out', disk],
    ['check', '--out', disk],
    ['check', '--out', join(disk, 'sub')],
  ]) {
    const run = detdrift([...args, '--', 'node', 'app.js'], dir);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /ERR_OUT_DIR: --out \S+ (is not writable|cannot be created): EROFS/);
  }
});

test('an unwritable TMPDIR is ERR_TEMP_DIR, with no stack', () => {
  const dir = project({ 'app.js': 'Math.random();\n', 'not-a-folder': '' });
  const run = runWith(['check', '--', 'node', 'app.js'], dir, { TMPDIR: join(dir, 'not-a-folder') });
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /^detdrift: ERR_TEMP_DIR: cannot make a work folder in \S+not-a-folder \(the temporary folder, TMPDIR\): ENOTDIR/m,
  );
  assert.match(run.stderr, /set TMPDIR to a writable folder, or give --out/);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
});

test("a SIGKILLed record's program stops writing its trace and closes it, and runs on", LINUX, async (t) => {
  const dir = project({ 'spin.js': 'console.log(process.pid);\nfor (;;) performance.now();\n' });
  const out = join(tempDir(), 'out');
  const record = start(['record', '--out', out, '--', 'node', 'spin.js'], dir);
  const pid = Number(await record.line(/^\d+$/m));
  t.after(() => stop(pid));
  process.kill(record.pid, 'SIGKILL'); // record alone: its program is reparented, still spinning
  const said = await record.line(/^detdrift: ERR_DETDRIFT_WRITE: .*$/m);
  assert.match(said, /\.ddtrace: the detdrift command recording it \(pid \d+\) is gone: trace closed/);
  assert.equal(isRunning(pid), true, 'the program runs on');
  assert.deepEqual(openTraces(pid), [], 'its trace is closed');
});

test("the next check frees the trace a SIGKILLed check's program still holds open", LINUX, async (t) => {
  // enough clock reads for a chunk written, then idle: the program holds its trace and writes no more
  const dir = project({
    'idle.cjs': `
      for (let i = 0; i < 20000; i++) performance.now();
      require('node:fs').writeFileSync('started', String(process.pid));
      setInterval(() => {}, 1 << 30);
    `,
    'quick.cjs': 'Math.random();\n',
  });
  const out = join(tempDir(), 'out');
  const check = start(['check', '--out', out, '--', 'node', 'idle.cjs'], dir);
  const pid = Number(await fileOf(dir, 'started'));
  t.after(() => stop(pid));
  process.kill(check.pid, 'SIGKILL');
  await check.done;
  const [held] = openTraces(pid);
  assert.ok(held !== undefined && statSync(held.fd).size > 0, 'the program holds a trace with chunks in it');
  const next = detdrift(['check', '--out', out, '--', 'node', 'quick.cjs'], dir);
  assert.equal(next.code, 0, next.stderr);
  assert.equal(statSync(held.fd).size, 0, 'the sweep emptied the file it still holds: the disk is freed');
});

test('two commands on one --out: the second is ERR_OUT_DIR_BUSY and the first keeps its trace', async (t) => {
  const dir = project({
    'waits.js':
      "console.log('ready');\nprocess.stdin.on('data', () => {}).on('end', () => console.log(Math.random() < 1));\n",
    'quick.js': 'Math.random();\n',
  });
  const out = join(tempDir(), 'out');
  const first = start(['record', '--out', out, '--', 'node', 'waits.js'], dir);
  t.after(() => first.end());
  await first.line(/^ready$/m);
  for (const command of [['record'], ['check', '--keep']]) {
    const second = detdrift([...command, '--out', out, '--', 'node', 'quick.js'], dir);
    assert.equal(second.code, 2, second.stderr);
    assert.match(second.stderr, /ERR_OUT_DIR_BUSY: --out \S+ is in use by detdrift \(pid \d+\)/);
  }
  first.end();
  const run = await first.done;
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /\.ddtrace: \d+ events, complete, exit code 0\n$/);
  assert.equal(existsSync(join(out, '.detdrift-lock')), false, 'the lock goes with its command');
  const again = detdrift(['record', '--out', out, '--', 'node', 'quick.js'], dir);
  assert.equal(again.code, 0, again.stderr);
});

test('a lock whose command is gone is taken over', () => {
  const dir = project({ 'quick.js': 'Math.random();\n' });
  const out = join(tempDir(), 'out');
  mkdirSync(out);
  const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  const host = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
  writeFileSync(join(out, '.detdrift-lock'), `${host}:${gone.stdout}\n`);
  const run = detdrift(['record', '--out', out, '--', 'node', 'quick.js'], dir);
  assert.equal(run.code, 0, run.stderr);
});

interface Started {
  readonly pid: number;
  readonly done: Promise<Run>;
  /** the first match of `pattern` in stdout or stderr, as soon as it is printed */
  line(pattern: RegExp): Promise<string>;
  /** closes the command's stdin */
  end(): void;
}

/** The CLI in a process group of its own, so that a signal to it reaches it alone. */
function start(args: readonly string[], cwd: string, env: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, ...env }, detached: true });
  let output = '';
  const waiting = new Set<() => void>();
  const heard = (chunk: string) => {
    output += chunk;
    for (const look of waiting) look();
  };
  child.stdout.setEncoding('utf8').on('data', heard);
  child.stderr.setEncoding('utf8').on('data', heard);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: string) => (stdout += chunk));
  child.stderr.on('data', (chunk: string) => (stderr += chunk));
  const done = new Promise<Run>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return {
    pid: child.pid!,
    done,
    end: () => child.stdin.end(),
    line: (pattern) =>
      new Promise((resolve) => {
        const look = () => {
          const match = pattern.exec(output);
          if (match === null) return;
          waiting.delete(look);
          resolve(match[0]);
        };
        waiting.add(look);
        look();
      }),
  };
}

function runWith(args: readonly string[], cwd: string, env: Record<string, string>): Run {
  const result = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** `name` in `dir` once it is written (watched, then looked for, so none is missed), with its text. */
function fileOf(dir: string, name: string): Promise<string> {
  return new Promise((resolve) => {
    const look = () => {
      const text = existsSync(join(dir, name)) ? readFileSync(join(dir, name), 'utf8') : '';
      if (text === '') return;
      watcher.close();
      resolve(text);
    };
    const watcher = watch(dir, look);
    look();
  });
}

/** The trace files `pid` has open, each with the path of its descriptor in /proc. */
function openTraces(pid: number): { fd: string; file: string }[] {
  const fds = join('/proc', String(pid), 'fd');
  return readdirSync(fds)
    .map((fd) => ({ fd: join(fds, fd), file: safeReadlink(join(fds, fd)) }))
    .filter(({ file }) => /\.ddtrace( \(deleted\))?$/.test(file));
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return ''; // closed meanwhile
  }
}

/** Ends a program this test left running, if it still runs. */
function stop(pid: number): void {
  if (isRunning(pid)) process.kill(pid, 'SIGKILL');
}
