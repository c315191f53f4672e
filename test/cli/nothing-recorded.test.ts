/**
 * No trace, no verdict: a check or bump whose run recorded nothing, or whose first process exited
 * without ending its trace, says so with a stable code (and the hook's own error when there is
 * one) and never exits 0, where two empty runs used to "agree".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bumpOf, upgrade } from '../bump-fixtures.js';
import { appWith, detdrift } from '../cli-fixtures.js';
import { CLI, runPlain, type Run } from '../helpers.js';

const MAJOR = Number(process.versions.node.split('.')[0]);
/** Node 20's permission model is still behind its experimental flag. */
const PERMISSION = MAJOR >= 22 ? '--permission' : '--experimental-permission';

const app = appWith({
  'app.js': "console.log('drew', Math.random() < 2);\n",
  // a program that drops `exit` in its own process.emit: Node's natural end goes past the hook
  'swallow.js': [
    'const emit = process.emit;',
    "process.emit = function (name, ...args) { return name === 'exit' ? false : emit.call(this, name, ...args); };",
    "console.log('drew', Math.random() < 2);",
    '',
  ].join('\n'),
  'freeze.cjs': 'Object.freeze(Math);\n',
});

function assertRefused(run: Run, code: string, ...says: string[]): void {
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, new RegExp(`detdrift: ${code}: run 1\\b`));
  for (const said of says) assert.ok(run.stderr.includes(said), `${said} in:\n${run.stderr}`);
  assert.equal(run.stdout, '', 'no verdict');
}

test('a command that runs no Node.js process (sh -c) recorded nothing: ERR_NOTHING_RECORDED, exit 2', () => {
  const run = detdrift(['check', '--', 'sh', '-c', 'echo $RANDOM'], app);
  assertRefused(run, 'ERR_NOTHING_RECORDED', 'no Node.js process ran under the hook');
});

test("a program under Node's permission model: the hook's ERR_DETDRIFT_OPEN is quoted, exit 2", () => {
  const run = detdrift(['check', '--', process.execPath, PERMISSION, '--allow-fs-read=*', 'app.js'], app);
  assertRefused(
    run,
    'ERR_NOTHING_RECORDED',
    'the hook could not record: ERR_DETDRIFT_OPEN: cannot create a trace file',
  );
});

test("a preload that freezes Math before the hook: the hook's ERR_DETDRIFT_PATCH is quoted, exit 2", () => {
  const env = { NODE_OPTIONS: `--require ${app}/freeze.cjs` };
  const run = runPlain([CLI, 'check', '--', process.execPath, 'app.js'], { cwd: app, env });
  assertRefused(run, 'ERR_NOTHING_RECORDED', 'the hook could not record: ERR_DETDRIFT_PATCH');
});

test("a program whose own process.emit swallows 'exit' leaves a trace with no end record: ERR_UNENDED_TRACE, exit 2", () => {
  const run = detdrift(['check', '--', process.execPath, 'swallow.js'], app);
  assertRefused(run, 'ERR_UNENDED_TRACE', 'process 0 exited (the command exited with status 0)', "drop 'exit'");
});

test('bump: a command that runs no Node.js process is refused the same way, naming the run', () => {
  const dir = upgrade(
    'npm-v3',
    "console.log(require('dice').roll());\n",
    'dice',
    ['1.0.0', 'exports.roll = () => 4;\n'],
    ['1.0.1', 'exports.roll = () => 5;\n'],
  );
  const run = bumpOf(dir, ['sh', '-c', 'echo $RANDOM'], 'materialize.cjs');
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /detdrift: ERR_NOTHING_RECORDED: seed 7's run 1 on base recorded nothing/);
});

test('a program that records and exits normally is still checked as before', () => {
  const run = detdrift(['check', '--', process.execPath, 'app.js'], app);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /the runs agree/);
});
