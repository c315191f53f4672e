import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CliError } from '../../cli/shared/errors.js';
import satisfies from 'semver/functions/satisfies.js';
import { checkNodeVersion, simplySatisfies } from '../../cli/node-version.js';
import { compareLineage } from '../../tracer/lineage.js';
import { CLI, project, readTrace, runPlain, type Run } from '../helpers.js';

/** Runs the real CLI (the built bin) in a child process, on the node running the tests. */
function detdrift(args: readonly string[], cwd: string): Run {
  return runPlain([CLI, ...args], { cwd });
}

const STAMP_DEP = {
  'node_modules/stamp-dep/package.json': { name: 'stamp-dep', version: '2.0.1', main: 'index.js' },
  'node_modules/stamp-dep/index.js':
    "'use strict';\nexports.stamp = function stamp() {\n  return [Date.now(), Math.random()];\n};\n",
};

const APP = [
  "import { stamp } from 'stamp-dep';",
  'const now = Date.now();',
  'const draw = Math.random();',
  'const [depNow, depDraw] = stamp();',
  'console.log(JSON.stringify({ now, draw, depNow, depDraw }));',
].join('\n');

const KEYS = ['seq', 'api', 'form', 'family', 'value', 'site', 'ctx'];

test('record then show: each clock and random call with its value, site and package', () => {
  const lock = '{"lockfileVersion":3}\n';
  const dir = project({
    'package.json': { name: 'fixture-app', version: '1.0.0' },
    'package-lock.json': lock,
    'app.mjs': APP,
    ...STAMP_DEP,
  });
  const record = detdrift(['record', '--out', 'trace', '--seed', '42', '--', process.execPath, 'app.mjs'], dir);
  assert.equal(record.code, 0, record.stderr);
  const seen = JSON.parse(record.stdout);
  const summary = /^detdrift: trace\/0\.ddtrace: (\d+) events?, complete, exit code 0\n$/.exec(record.stderr);
  assert.ok(summary, `record says where the trace is: ${record.stderr}`);

  const json = detdrift(['show', 'trace/0.ddtrace', '--json'], dir);
  assert.equal(json.code, 0, json.stderr);
  const events = json.stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.equal(events.length, Number(summary[1]));
  for (const event of events) assert.deepEqual(Object.keys(event), KEYS);
  const drawn = events.filter((event) => event.api === 'Date.now' || event.api === 'Math.random');
  const own = (line: number, column: number) => ({ file: 'app.mjs', line, column, fn: null, package: null });
  const dep = (column: number) => ({
    file: 'stamp-dep@2.0.1/index.js',
    line: 3,
    column,
    fn: 'stamp',
    package: 'stamp-dep@2.0.1',
  });
  assert.deepEqual(
    drawn.map(({ seq: _seq, ctx: _ctx, ...rest }) => rest),
    [
      { api: 'Date.now', form: 'call', family: 'clock', value: seen.now, site: own(2, 18) },
      { api: 'Math.random', form: 'call', family: 'random', value: seen.draw, site: own(3, 19) },
      { api: 'Date.now', form: 'call', family: 'clock', value: seen.depNow, site: dep(16) },
      { api: 'Math.random', form: 'call', family: 'random', value: seen.depDraw, site: dep(28) },
    ],
  );
  assert.equal(json.stderr, `detdrift: trace/0.ddtrace: ${events.length} events, complete, exit code 0\n`);

  const text = detdrift(['show', 'trace/0.ddtrace'], dir);
  assert.equal(text.code, 0, text.stderr);
  const lines = text.stdout.trimEnd().split('\n');
  assert.equal(lines.length, events.length);
  const site = (s: { file: string; line: number; column: number }) => `${s.file}:${s.line}:${s.column}`;
  for (const event of drawn) {
    assert.equal(lines[event.seq], `${event.seq}  ${event.api}  ${event.value}  ${site(event.site)}  ctx=${event.ctx}`);
  }
  assert.equal(text.stderr, json.stderr);

  const header = readTrace(join(dir, 'trace', '0.ddtrace')).header;
  assert.equal(header.seed, '42');
  assert.equal(header.mode, 'observe');
  assert.deepEqual(header.root, { name: 'fixture-app', version: '1.0.0' });
  assert.deepEqual(header.lockfile, {
    file: 'package-lock.json',
    sha256: createHash('sha256').update(lock).digest('hex'),
  });
});

test('record from a subdirectory makes paths relative to the nearest package.json', () => {
  const dir = project({ 'package.json': { name: 'nested' }, 'sub/app.cjs': 'Date.now();\n' });
  const record = detdrift(['record', '--out', 'trace', '--', process.execPath, 'app.cjs'], join(dir, 'sub'));
  assert.equal(record.code, 0, record.stderr);
  const show = detdrift(['show', 'trace', '--json'], join(dir, 'sub'));
  const [heading, first] = show.stdout.split('\n').map((line) => (line ? JSON.parse(line) : null));
  assert.deepEqual(heading, { trace: 'trace/0.ddtrace', lineage: '0', command: ['node', 'sub/app.cjs'] });
  assert.equal(first.site.file, 'sub/app.cjs');
  const text = detdrift(['show', 'trace'], join(dir, 'sub'));
  assert.equal(text.stdout.split('\n')[0], '== trace/0.ddtrace: lineage 0: node sub/app.cjs');
});

test('record traces child processes, and show lists a directory in lineage order', () => {
  const spawn =
    "require('node:child_process').spawnSync(process.execPath, ['-e', 'Math.random()'], { stdio: 'inherit' });";
  const dir = project({ 'app.cjs': `${spawn}\n${spawn}\nMath.random();\n` });
  const record = detdrift(['record', '--out', 'trace', '--', process.execPath, 'app.cjs'], dir);
  assert.equal(record.code, 0, record.stderr);
  const files = record.stderr
    .split('\n')
    .filter(Boolean)
    .map((line) => /^detdrift: (\S+): \d+ events?, complete, exit code 0$/.exec(line)?.[1]);
  assert.deepEqual(files, ['trace/0.ddtrace', 'trace/0.1.ddtrace', 'trace/0.2.ddtrace']);
  const headings = detdrift(['show', 'trace'], dir)
    .stdout.split('\n')
    .filter((line) => line.startsWith('=='));
  assert.deepEqual(
    headings.map((line) => line.split(':')[0]),
    ['== trace/0.ddtrace', '== trace/0.1.ddtrace', '== trace/0.2.ddtrace'],
  );
});

test('lineages sort parent first, children by number, then workers, then collided names', () => {
  const lineages = ['0~2', '0.w1', '0.10', '0.2.1', '0', '0.2', '0.1', '0.w2'];
  assert.deepEqual(lineages.sort(compareLineage), ['0', '0.1', '0.2', '0.2.1', '0.10', '0.w1', '0.w2', '0~2']);
  assert.deepEqual(['0.@b_test_mjs', '0.t3', '0.@a_test_mjs', '0.1'].sort(compareLineage), [
    '0.1',
    '0.t3',
    '0.@a_test_mjs',
    '0.@b_test_mjs',
  ]);
});

test("the program's stdout, stderr and exit status pass through untouched; logs stay on stderr", () => {
  const app =
    "process.stdout.write('raw\\r\\nbytes \\u00e9\\u0000 no newline');\nconsole.error('to stderr');\nprocess.exitCode = 3;\n";
  const dir = project({ 'app.cjs': app });
  const plain = runPlain(['app.cjs'], { cwd: dir });
  const record = detdrift(
    ['record', '--log-level', 'debug', '--log-format', 'json', '--out', 'trace', '--', process.execPath, 'app.cjs'],
    dir,
  );
  assert.equal(record.code, 3);
  assert.equal(record.stdout, plain.stdout);
  // pino's JSON lines come first (before the program starts); the rest is the program's, then ours.
  const lines = record.stderr.split(/(?<=\n)/);
  const logs = lines.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  assert.deepEqual(
    logs.map((log) => log.msg),
    ['recording'],
  );
  const rest = lines.filter((line) => !line.startsWith('{')).join('');
  assert.ok(rest.startsWith(plain.stderr), rest);
  assert.match(rest.slice(plain.stderr.length), /^detdrift: trace\/0\.ddtrace: \d+ events?, complete, exit code 3\n$/);
});

test('a program ended by a signal makes record exit 128+N, its trace the incomplete prefix', {
  skip: process.platform === 'win32',
}, () => {
  const dir = project({ 'app.cjs': "process.kill(process.pid, 'SIGTERM');\nsetTimeout(() => {}, 60_000);\n" });
  const record = detdrift(['record', '--out', 'trace', '--', process.execPath, 'app.cjs'], dir);
  assert.equal(record.code, 143, record.stderr);
  assert.match(record.stderr, /incomplete: no end record \(the run was killed\)\n$/);
});

test('record replaces old traces and refuses a directory holding anything else', () => {
  const dir = project({ 'app.cjs': 'Math.random();\n', 'trace/0.7.ddtrace': 'stale', 'keep/notes.txt': 'mine' });
  assert.equal(detdrift(['record', '--out', 'trace', '--', process.execPath, 'app.cjs'], dir).code, 0);
  assert.deepEqual(readdirSync(join(dir, 'trace')), ['0.ddtrace']);
  const refused = detdrift(['record', '--out', 'keep', '--', process.execPath, 'app.cjs'], dir);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /^detdrift: ERR_OUT_DIR: .*"notes\.txt"/);
  assert.equal(readFileSync(join(dir, 'keep', 'notes.txt'), 'utf8'), 'mine');
});

test('bad usage exits 2 with a coded error on stderr and nothing on stdout', () => {
  const dir = project({
    'app.cjs': '',
    'not-a-trace.json': '{"a":1}\n',
    'given/empty.ddtrace': '',
    'traces/.keep': '',
  });
  const cases: Array<[string[], RegExp]> = [
    [['record', '--', 'node', 'app.cjs'], /ERR_USAGE: record needs --out DIR/],
    [['record', '--out', 'trace', '--'], /ERR_USAGE: record needs the command to trace after "--"/],
    [['record', '--out', 'trace'], /ERR_USAGE: record needs the command/],
    // A command given without "--": the line it should have been.
    [
      ['record', '--out', 'trace', 'node', 'app.cjs'],
      /ERR_USAGE: the command to run goes after "--". Did you mean: detdrift record --out trace -- node app.cjs\n/,
    ],
    [
      ['check', '--seed', '42', 'node', '--test'],
      /ERR_USAGE: unknown option --test \(detdrift check\). Did you mean: detdrift check --seed 42 -- node --test\n/,
    ],
    [
      ['bump', '--base=main', '-o', 'out dir', 'npx', 'vitest', 'run'],
      /ERR_USAGE: the command to run goes after "--". Did you mean: detdrift bump --base=main -o 'out dir' -- npx vitest run\n/,
    ],
    [
      ['record', '--out', 'trace', '--mode', 'chaos', '--', 'node'],
      /ERR_OPTION_VALUE: --mode got "chaos"; allowed: observe, control\n/,
    ],
    [
      ['record', '--out', 'trace', '--mode', 'replay', '--', 'node'],
      /ERR_OPTION_VALUE: --mode got "replay"; allowed: observe, control; replay runs through "detdrift replay/,
    ],
    [['record', '--out', 'trace', '--seed', 'x1', '--', 'node'], /ERR_OPTION_VALUE: --seed got "x1"; allowed: /],
    [
      ['record', '--out', 'trace', '--log-level', 'loud', '--', 'node'],
      /ERR_OPTION_VALUE: --log-level got "loud"; allowed: fatal, /,
    ],
    [['record', '--out', 'trace', '--frob', '--', 'node'], /ERR_USAGE: unknown option --frob \(detdrift record\)\n/],
    [
      ['record', '--out', 'trace', '--', 'detdrift-no-such-command'],
      /ERR_COMMAND_START: cannot start "detdrift-no-such-command"/,
    ],
    [['frob'], /ERR_USAGE: unknown command "frob"/],
    [[], /ERR_USAGE: no command given/],
    [['show'], /ERR_USAGE: show needs exactly one TRACE/],
    [['show', 'missing.ddtrace'], /ERR_TRACE_READ: .*missing\.ddtrace: byte 0: cannot open/],
    [['show', 'not-a-trace.json'], /ERR_TRACE_FOREIGN: .*not-a-trace\.json: byte 0: expected a detdrift trace/],
    [['show', '.'], /ERR_NO_TRACES: /],
    // A path that is no trace, or a trace given alone that holds nothing, is bad input for every command taking one.
    [
      ['show', 'given/empty.ddtrace'],
      /ERR_TRACE_EMPTY: .*empty\.ddtrace: byte 0: expected a trace header, found an empty file \(the run stopped before its first write\)\n$/,
    ],
    [['report', 'not-a-trace.json', 'given/empty.ddtrace'], /ERR_TRACE_FOREIGN: .*not-a-trace\.json: byte 0: /],
    [['report', 'traces', 'app.cjs'], /ERR_NO_TRACES: .*traces holds no trace file/],
    [
      ['replay', 'given/empty.ddtrace', '--', 'node', 'app.cjs'],
      /ERR_NO_TRACES: .*empty\.ddtrace is not a trace directory: give the directory the run was recorded into\n$/,
    ],
    [['replay', 'traces', '--', 'node', 'app.cjs'], /ERR_NO_TRACES: no traces to replay in .*traces\n$/],
    [['matrix', 'app.cjs'], /ERR_NO_TRACES: no matrix directory at .*app\.cjs\n$/],
    ...(existsSync('/dev/null')
      ? ([
          [['show', '/dev/null'], /ERR_TRACE_READ: \/dev\/null: byte 0: expected a trace file, found a device\n$/],
          [['report', 'given/empty.ddtrace', '/dev/null'], /ERR_TRACE_EMPTY: .*empty\.ddtrace: byte 0: /],
          [
            ['report', '/dev/null', '/dev/null'],
            /ERR_TRACE_READ: \/dev\/null: byte 0: expected a trace file, found a device\n$/,
          ],
          [['report', '/dev/zero'], /ERR_REPORT_FILE: cannot read a report from \/dev\/zero: a device, not a file\n$/],
          [['replay', '/dev/null', '--', 'node', 'app.cjs'], /ERR_NO_TRACES: \/dev\/null is not a trace directory/],
          [['matrix', '/dev/null'], /ERR_NO_TRACES: no matrix directory at \/dev\/null\n$/],
        ] as Array<[string[], RegExp]>)
      : []),
  ];
  for (const [args, expected] of cases) {
    const run = detdrift(args, dir);
    assert.equal(run.code, 2, `detdrift ${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, new RegExp(`^detdrift: ${expected.source}`), `detdrift ${args.join(' ')}`);
    assert.equal(run.stdout, '', `detdrift ${args.join(' ')}`);
  }
  assert.equal(existsSync(join(dir, 'trace', '0.ddtrace')), false, 'nothing ran');
});

test('show reads past a corrupt chunk, saying which bytes it skipped, and reads a truncated trace', () => {
  const dir = project({ 'app.cjs': 'Date.now(); Math.random();\n' });
  assert.equal(detdrift(['record', '--out', 'trace', '--', process.execPath, 'app.cjs'], dir).code, 0);
  const bytes = readFileSync(join(dir, 'trace', '0.ddtrace'));
  const chunk = bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;

  // The trace's one chunk, damaged: nothing after it to go on with, and it is no torn write either.
  const corrupt = Buffer.from(bytes);
  corrupt[chunk + 10] = corrupt[chunk + 10]! ^ 0xff;
  writeFileSync(join(dir, 'corrupt.ddtrace'), corrupt);
  const shown = detdrift(['show', 'corrupt.ddtrace'], dir);
  assert.equal(shown.code, 0, shown.stderr);
  assert.equal(
    shown.stderr,
    `detdrift: corrupt.ddtrace: 0 events, incomplete: no end record read; ERR_TRACE_CORRUPT: bytes ${chunk} to ${bytes.length} skipped: expected a chunk whose checksum matches its payload\n`,
  );

  writeFileSync(join(dir, 'newer.ddtrace'), 'DETDRIFT-TRACE 9\n{}\n');
  assert.match(
    detdrift(['show', 'newer.ddtrace'], dir).stderr,
    /^detdrift: ERR_TRACE_VERSION: .*newer\.ddtrace: byte 15: /,
  );

  writeFileSync(join(dir, 'torn.ddtrace'), bytes.subarray(0, chunk + 12));
  const torn = detdrift(['show', 'torn.ddtrace'], dir);
  assert.equal(torn.code, 0, torn.stderr);
  assert.equal(torn.stdout, '');
  assert.equal(
    torn.stderr,
    `detdrift: torn.ddtrace: 0 events, truncated at byte ${chunk} (the run stopped mid-write)\n`,
  );
});

test('--help prints each command with what it does on stdout and exits 0', () => {
  const run = detdrift(['--help'], process.cwd());
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^ {2}record {2}runs a command under the hook and writes one trace per process$/m);
  assert.match(run.stdout, /^ {2}show {4}prints a trace, one line per recorded call$/m);
  assert.match(run.stdout, /^Run 'detdrift COMMAND --help' for a command's options/m);
});

test('the Node.js version check accepts 20.19+, 22.12+ and 24+ only', async () => {
  for (const version of ['20.19.0', '20.20.2', '22.12.0', '22.23.5', '24.0.0', '24.22.3', process.versions.node]) {
    await assert.doesNotReject(checkNodeVersion(version), version);
  }
  for (const version of ['18.20.4', '20.18.3', '21.7.3', '22.11.0', '23.1.0', '25.0.0-nightly20261201abcdef']) {
    // the nightly is semver's to decide, which takes no prerelease
    await assert.rejects(checkNodeVersion(version), (error: unknown) => {
      assert.ok(error instanceof CliError);
      assert.equal(error.code, 'ERR_NODE_VERSION');
      assert.equal(error.status, 2);
      assert.match(error.message, new RegExp(`Node\\.js ${version.replace(/\./g, '\\.')} is not supported`));
      return true;
    });
  }
});

test('the version check decides as semver does wherever it decides without it', () => {
  const ranges = ['^20.19.0 || ^22.12.0 || >=24.0.0', '>=18.0.0', '^1.2.3', '^20.19.0', '>=20.19.0 || ^18.0.5'];
  let decided = 0;
  for (const range of ranges) {
    for (let major = 0; major <= 26; major++) {
      for (const minor of [0, 1, 2, 3, 11, 12, 13, 18, 19, 20]) {
        for (const patch of [0, 2, 4, 5, 6]) {
          const version = `${major}.${minor}.${patch}`;
          const fast = simplySatisfies(version, range);
          if (fast === undefined) continue;
          decided++;
          assert.equal(fast, satisfies(version, range), `${version} against ${range}`);
        }
      }
    }
  }
  assert.equal(decided, ranges.length * 27 * 10 * 5, 'every release version against these ranges is decided');
  for (const [version, range] of [
    ['20.19.0-nightly', '>=20.0.0'],
    ['1.2.3', '^0.2.3'],
    ['1.2.3', '~1.2.0'],
    ['1.2.3', '1.x'],
  ])
    assert.equal(simplySatisfies(version!, range!), undefined, `${version} against ${range}: semver's`);
});
