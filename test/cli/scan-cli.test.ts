import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLI, project, runPlain, type Run } from '../helpers.js';
import { ULID_2, ULID_3 } from '../ulid-fixture.js';

/** Runs the real CLI (the built bin) in a child process. */
function detdrift(args: readonly string[], cwd: string): Run {
  return runPlain([CLI, ...args], { cwd });
}

/** Two versions of a dependency, as an app's node_modules would hold them before and after a bump. */
function bump(): string {
  const manifest = (version: string) => ({ name: 'queue-lite', version, main: 'index.js' });
  return project({
    'base/node_modules/queue-lite/package.json': manifest('1.0.0'),
    'base/node_modules/queue-lite/index.js': [
      "'use strict';",
      'exports.schedule = function schedule(job) {',
      '  setImmediate(job);',
      '};',
      'exports.stamp = function stamp() {',
      '  return Date.now();',
      '};',
    ].join('\n'),
    'base/node_modules/queue-lite/lib/legacy.js': 'module.exports = () => new Date();\n',
    'head/node_modules/queue-lite/package.json': manifest('1.1.0'),
    'head/node_modules/queue-lite/index.js': [
      '/*! queue-lite 1.1.0 */',
      "'use strict';",
      "const { randomInt } = require('node:crypto');",
      'exports.schedule = function schedule(job) {',
      '  setImmediate(job);',
      '};',
      'exports.stamp = function stamp() {',
      '  return Date.now();',
      '};',
      'exports.backoff = function backoff(attempt) {',
      '  return 2 ** attempt * (1 + Math.random()) + randomInt(10);',
      '};',
    ].join('\n'),
    'head/node_modules/queue-lite/test/index.js': 'Math.random();\n',
  });
}

const BASE = 'base/node_modules/queue-lite';
const HEAD = 'head/node_modules/queue-lite';

test('scan --diff: the sites the new version added (+) and removed (-), one line each', () => {
  const dir = bump();
  const run = detdrift(['scan', '--diff', BASE, HEAD], dir);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    run.stdout,
    [
      '+ Math.random       index.js:11:35',
      '+ crypto.randomInt  index.js:11:47',
      '- new Date          lib/legacy.js:1:24',
      '',
    ].join('\n'),
  );
  assert.equal(
    run.stderr,
    [
      'detdrift: queue-lite@1.0.0: 2 files, 0.000 MB, 3 sites, 0 errors, 0 skipped',
      'detdrift: queue-lite@1.1.0: 1 files, 0.000 MB, 4 sites, 0 errors, 0 skipped',
      'detdrift: queue-lite@1.0.0 -> queue-lite@1.1.0: 2 added, 1 removed, 0 changed, 2 unchanged',
      '',
    ].join('\n'),
  );
});

test('scan --diff on a version that moved its files into two builds: only the call through the globalCrypto alias is added', () => {
  const install = (where: string, version: string, files: Record<string, string>) => ({
    [`${where}/node_modules/ulid/package.json`]: { name: 'ulid', version, main: 'index.js' },
    ...Object.fromEntries(Object.entries(files).map(([file, text]) => [`${where}/node_modules/ulid/${file}`, text])),
  });
  const dir = project({ ...install('base', '2.4.0', ULID_2), ...install('head', '3.0.0', ULID_3) });
  const run = detdrift(['scan', '--diff', 'base/node_modules/ulid', 'head/node_modules/ulid'], dir);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(
    run.stdout,
    [
      '- Math.random             dist/index.umd.js:21:42',
      '+ crypto.getRandomValues  dist/node/index.cjs:27:20  (also in dist/node/index.js:26:20)',
      '',
    ].join('\n'),
  );
  assert.match(run.stderr, /ulid@2\.4\.0 -> ulid@3\.0\.0: 1 added, 1 removed, 4 changed, 0 unchanged\n$/);
});

test('scan --diff --json: the same diff as a versioned object', () => {
  const dir = bump();
  const run = detdrift(['scan', '--diff', BASE, HEAD, '--json'], dir);
  assert.equal(run.code, 0, run.stderr);
  const json = JSON.parse(run.stdout);
  assert.equal(json.schema, 'detdrift.scan-diff/1');
  assert.deepEqual(Object.keys(json), ['schema', 'a', 'b', 'added', 'removed', 'changed', 'unchanged']);
  assert.deepEqual(
    { ...json.b, bytes: undefined },
    { root: HEAD, package: 'queue-lite@1.1.0', files: 1, bytes: undefined, errors: [], skipped: [] },
  );
  assert.deepEqual(json.added[0], {
    api: 'Math.random',
    file: 'index.js',
    line: 11,
    column: 35,
    fn: 'backoff',
    snippet: 'return 2 ** attempt * (1 + Math.random()) + randomInt(10);',
    context: 'return2**attempt*(1+⟨Math.random()⟩)+randomInt(10);',
    copies: [],
  });
  assert.deepEqual(
    json.removed.map((site: { api: string }) => site.api),
    ['new Date'],
  );
  assert.equal(json.unchanged, 2);
});

test('scan DIR: every site of one package; --json lists them with the totals', () => {
  const dir = bump();
  const text = detdrift(['scan', HEAD], dir);
  assert.equal(text.code, 0, text.stderr);
  assert.equal(
    text.stdout,
    [
      'setImmediate      index.js:5:3',
      'Date.now          index.js:8:15',
      'Math.random       index.js:11:35',
      'crypto.randomInt  index.js:11:47',
      '',
    ].join('\n'),
  );
  const json = JSON.parse(detdrift(['scan', HEAD, '--json'], dir).stdout);
  assert.equal(json.schema, 'detdrift.scan/1');
  assert.equal(json.package, 'queue-lite@1.1.0');
  assert.equal(json.sites.length, 4);
});

test('a file that does not parse is reported on stderr and the scan still succeeds', () => {
  const dir = project({ 'pkg/a.js': 'Date.now();\n', 'pkg/b.mjs': 'export const x = Date.now(;\n' });
  const run = detdrift(['scan', 'pkg'], dir);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, 'Date.now  a.js:1:6\n');
  assert.match(run.stderr, /^detdrift: ERR_SCAN_PARSE: pkg: b\.mjs:1:27: Unexpected token\n/);
  assert.match(run.stderr, /pkg: 2 files, [\d.]+ MB, 1 sites, 1 errors, 0 skipped\n$/);
});

test('bad usage and a missing directory exit 2 with a coded error', () => {
  const dir = project({ 'pkg/a.js': '' });
  const cases: [string[], RegExp][] = [
    [['scan'], /ERR_USAGE: scan needs one package directory, got 0/],
    [
      ['scan', 'pkg', 'pkg'],
      /ERR_USAGE: scan needs one package directory, got 2; to compare two versions: scan --diff A B/,
    ],
    [['scan', '--diff', 'pkg'], /ERR_USAGE: scan --diff needs two package directories/],
    [['scan', 'missing'], /^detdrift: ERR_SCAN_DIR: missing: no such directory/],
    [['scan', '--diff', 'pkg', 'pkg/a.js'], /^detdrift: ERR_SCAN_DIR: pkg\/a\.js: not a directory/],
  ];
  for (const [args, message] of cases) {
    const run = detdrift(args, dir);
    assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, message);
  }
});
