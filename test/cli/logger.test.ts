import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { sentence } from '../../cli/shared/logger.js';
import { CLI, project, runPlain } from '../helpers.js';

/** A project whose config has an unknown key and whose command fails: warnings of both kinds. */
function failing(): string {
  const app = "console.error('boom\\n::error::forged');\nconsole.log('same');\nprocess.exitCode = 2;\n";
  return project({
    'package.json': { name: 'app', version: '1.0.0' },
    'detdrift.config.json': { sedes: [1] },
    'app.js': app,
  });
}

// --perturb: its runs log a failing command's status and stderr (plain check reports them in the report).
const check = (dir: string, args: readonly string[] = [], env: Record<string, string> = {}) =>
  runPlain([CLI, 'check', '--no-confirm', '--perturb', 'timezone', ...args, '--', process.execPath, 'app.js'], {
    cwd: dir,
    env,
  });

test('warnings are sentences on stderr: the config key, and a failed command with its stderr under it, inert', () => {
  const dir = failing();
  const run = check(dir);
  assert.equal(run.code, 0, run.stderr);
  const config = join(dir, 'detdrift.config.json');
  assert.match(
    run.stderr,
    new RegExp(
      `^detdrift: warning: ${config.replaceAll('.', '\\.')}: sedes: unknown key, ignored \\(did you mean "seeds"\\?\\); known: seeds, `,
      'm',
    ),
  );
  assert.match(
    run.stderr,
    /^detdrift: warning: the command exited with a non-zero status \(out: \S+plain, status: 2\)\n {2}stderr:\n {4}boom\n {4}:\\u003aerror:\\u003aforged\n/m,
  );
  assert.doesNotMatch(run.stderr, /^\{/m, 'no JSON line');
});

test('--log-format json keeps pino lines on stderr; --log-file and DETDRIFT_LOG_FILE write them to a file besides the sentences', () => {
  const dir = failing();
  const json = check(dir, ['--log-format', 'json']);
  const lines = json.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string; status?: number; stderr?: string });
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg.replace(/^.*: sedes: /, 'sedes: ').slice(0, 17), line.status]),
    [
      [40, 'sedes: unknown ke', undefined],
      [40, 'the command exite', 2],
      [40, 'the command exite', 2],
    ],
  );
  assert.equal(lines[1]!.stderr, 'boom\n::error::forged\n', 'the data exact');

  for (const [args, env, file] of [
    [['--log-file', 'logs/a.log'], {}, 'logs/a.log'],
    [[], { DETDRIFT_LOG_FILE: 'b.log' }, 'b.log'],
  ] as const) {
    const run = check(dir, args, env);
    assert.match(run.stderr, /^detdrift: warning: the command exited/m, 'people still read sentences');
    const logged = readFileSync(join(dir, file), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { msg: string });
    assert.equal(logged.length, 3, file);
    assert.equal(logged[2]!.msg, 'the command exited with a non-zero status');
  }
  const bad = check(dir, ['--log-format', 'xml']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^detdrift: ERR_OPTION_VALUE: --log-format got "xml"; allowed: human, json\n/);
});

test('a sentence: its level in words, short fields inline, an error by its stack, nothing that drives a terminal', () => {
  const error = { type: 'Error', message: 'no', stack: 'Error: no\n    at x (a.js:1:1)' };
  assert.equal(
    sentence({ level: 20, time: 1, name: 'detdrift', msg: 'command failed', code: 'E\u001b[2J', err: error }),
    'detdrift: debug: command failed (code: E\\u001b[2J)\n  err:\n    Error: no\n        at x (a.js:1:1)\n',
  );
  assert.equal(
    sentence({ level: 40, msg: 'a', header: { seed: '1' } }),
    'detdrift: warning: a (header: {"seed":"1"})\n',
  );
});

test('pino is loaded by the first line logged: a quiet record never loads it, a warning does', () => {
  // a preload of the CLI's process (not the command's: the CLI passes the hook, not its own flags, on)
  // that lists the CommonJS files it loaded when it exits
  const dir = project({
    'package.json': { name: 'app', version: '1.0.0' },
    'loaded.cjs':
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.LOADED_LIST, Object.keys(require.cache).join('\\n')));\n",
  });
  const pinoLoaded = (command: readonly string[]): boolean => {
    const list = join(dir, 'loaded.txt');
    runPlain(['--require', './loaded.cjs', CLI, ...command], { cwd: dir, env: { LOADED_LIST: list } });
    return /[\\/]node_modules[\\/]pino[\\/]/.test(readFileSync(list, 'utf8'));
  };
  const check = ['check', '--no-confirm', '--', process.execPath, '-e', '0'];
  assert.equal(pinoLoaded(['record', '--out', 'quiet', '--', process.execPath, '-e', '0']), false);
  assert.equal(pinoLoaded(check), false);
  // a config key check does not know of is a warning, logged
  writeFileSync(join(dir, 'detdrift.config.json'), '{ "sedes": [1] }\n');
  assert.equal(pinoLoaded(check), true);
});
