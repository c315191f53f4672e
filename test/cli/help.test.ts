import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMMANDS } from '../commands.js';
import { DEFAULTS } from '../../cli/shared/defaults.js';
import { colorEnabled } from '../../report/render.js';
import { detdrift } from '../cli-fixtures.js';
import { CLI, project, runPlain } from '../helpers.js';

test('detdrift COMMAND --help: what it does, its usage, every option with its default, and an example', () => {
  const help = detdrift(['check', '--help'], process.cwd());
  assert.equal(help.code, 0, help.stderr);
  assert.equal(help.stderr, '');
  const lines = help.stdout.split('\n');
  assert.match(lines[0]!, /^detdrift check: runs a command several times with the same seed/);
  assert.ok(lines.includes('Usage: detdrift check [options] -- CMD...'), help.stdout);
  assert.match(
    help.stdout,
    /^ {2}--runs N +how many runs, each later one compared with the first \(2 to 100\) \(default: 2\)$/m,
  );
  assert.match(
    help.stdout,
    new RegExp(`^ {2}--mode MODE +observe .* or control .*\\(default: ${DEFAULTS.mode}\\)$`, 'm'),
  );
  assert.match(help.stdout, /^ {2}-o, --out DIR +/m);
  assert.match(
    help.stdout,
    /^ {2}--log-file FILE +also append the log to FILE as JSON lines \(default: \$DETDRIFT_LOG_FILE\)$/m,
  );
  assert.match(help.stdout, /^Example:\n {2}detdrift check --seed 42 --runs 3 -- node test\/sim\.js\n$/m);
  assert.equal(detdrift(['help', 'check'], process.cwd()).stdout, help.stdout, 'detdrift help COMMAND says the same');
  for (const [name, command] of Object.entries(COMMANDS)) {
    const text = detdrift([name, '-h'], process.cwd()).stdout;
    for (const option of Object.keys(command.options))
      assert.match(text, new RegExp(`--${option}\\b`), `${name} --help lists --${option}`);
    assert.ok(text.includes(`\n  ${command.example}\n`), `${name} --help has an example`);
  }
});

test('a mistyped command or option: the nearest one suggested, ERR_USAGE, exit 2, nothing run', () => {
  const dir = project({ 'app.js': "require('node:fs').writeFileSync('ran', '');\n" });
  const cases: Array<[string[], string]> = [
    [
      ['chek', '--', process.execPath, 'app.js'],
      'unknown command "chek": did you mean "check"? (commands: record, diff, check,',
    ],
    [
      ['check', '--sed', '4', '--', process.execPath, 'app.js'],
      'unknown option --sed: did you mean --seed? (detdrift check)',
    ],
    [
      ['bump', '--bse', 'main', '--', process.execPath, 'app.js'],
      'unknown option --bse: did you mean --base? (detdrift bump)',
    ],
    [
      ['record', '--out', 't', '--zzzzzz', '--', process.execPath, 'app.js'],
      'unknown option --zzzzzz (detdrift record)',
    ],
    [['help', 'shwo'], 'unknown command "shwo": did you mean "show"?'],
  ];
  for (const [args, message] of cases) {
    const run = detdrift(args, dir);
    assert.equal(run.code, 2, run.stderr);
    assert.ok(run.stderr.startsWith(`detdrift: ERR_USAGE: ${message}`), run.stderr);
    assert.match(
      run.stderr,
      /\nRun 'detdrift --help' for usage, 'detdrift COMMAND --help' for a command's options\.\n$/,
    );
    assert.equal(run.stdout, '');
  }
  assert.equal(
    runPlain(['-e', "process.exit(require('node:fs').existsSync('ran') ? 1 : 0)"], { cwd: dir }).code,
    0,
    'nothing ran',
  );
});

test('colours: on a terminal, or with FORCE_COLOR; never with NO_COLOR alone, FORCE_COLOR=0, or in a pipe', () => {
  const tty = { isTTY: true };
  assert.equal(colorEnabled(tty, {}), true);
  assert.equal(colorEnabled(tty, { TERM: 'dumb' }), false);
  assert.equal(colorEnabled(tty, { NO_COLOR: '1' }), false);
  assert.equal(colorEnabled(tty, { NO_COLOR: '' }), true, 'an empty NO_COLOR is not set');
  assert.equal(colorEnabled({}, {}), false);
  assert.equal(colorEnabled({}, { FORCE_COLOR: '1' }), true);
  assert.equal(colorEnabled({}, { FORCE_COLOR: '' }), true);
  assert.equal(colorEnabled(tty, { FORCE_COLOR: '0' }), false);
  assert.equal(colorEnabled(tty, { FORCE_COLOR: 'false' }), false);
  assert.equal(colorEnabled({}, { FORCE_COLOR: '1', NO_COLOR: '1' }), true, 'FORCE_COLOR wins, as in Node');

  const demo = (env: Record<string, string | undefined>) =>
    runPlain([CLI, 'demo'], { cwd: process.cwd(), env: { FORCE_COLOR: undefined, NO_COLOR: undefined, ...env } })
      .stdout;
  const ansi = /\u001b\[\d+m/;
  assert.doesNotMatch(demo({}), ansi, 'a pipe gets no colour');
  assert.match(demo({ FORCE_COLOR: '1' }), ansi);
  assert.doesNotMatch(demo({ FORCE_COLOR: '0' }), ansi);
});
