import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { CONFIG_FILE, formatProblem, loadConfig, MAX_CONFIG_BYTES, parseConfig } from '../../cli/shared/config.js';
import { EMPTY_CONFIG } from '../../cli/shared/config-schema.js';
import { CLI, project, readTraces, runPlain } from '../helpers.js';

const messages = (problems: ReadonlyArray<{ file: string; path: string; message: string }>) =>
  problems.map(formatProblem);

test('a valid config is normalized: one seed is a list, numbers are seeds as typed, a command string is split at spaces', () => {
  const dir = project({
    [CONFIG_FILE]: {
      seeds: 42,
      command: 'node  test/sim.js --fast',
      ignore: { packages: ['pino', '@scope/log'], sites: ['src/log.js', 'lib/', 'dep/index.js:12'] },
      controlled: ['src/rng.js:5'],
    },
  });
  const loaded = loadConfig(dir);
  assert.deepEqual([loaded.errors, loaded.warnings, loaded.file], [[], [], join(dir, CONFIG_FILE)]);
  assert.deepEqual(loaded.config, {
    seeds: ['42'],
    command: ['node', 'test/sim.js', '--fast'],
    ignore: { sites: ['src/log.js', 'lib/', 'dep/index.js:12'], packages: ['pino', '@scope/log'] },
    runners: 'auto',
    controlled: ['src/rng.js:5'],
  });
  assert.ok(
    Object.isFrozen(loaded.config) &&
      Object.isFrozen(loaded.config.seeds) &&
      Object.isFrozen(loaded.config.ignore.packages),
  );
  assert.deepEqual(
    parseConfig('{"seeds": [1, "0x2A", "007"]}', 'c.json').config.seeds,
    ['1', '0x2A', '007'],
    'seeds stay as typed: 42 and 0x2a apart',
  );
});

test('config seeds take ranges as --seeds does: expanded in order, a seed named twice or a backward range is an error', () => {
  assert.deepEqual(parseConfig('{"seeds": ["1..4", 42, "10..11"]}', 'c.json').config.seeds, [
    '1',
    '2',
    '3',
    '4',
    '42',
    '10',
    '11',
  ]);
  assert.deepEqual(parseConfig('{"seeds": "5..7"}', 'c.json').config.seeds, ['5', '6', '7']);
  assert.deepEqual(messages(parseConfig('{"seeds": ["1..4", 3]}', 'c.json').errors), [
    'c.json: seeds: seed 3 is named twice',
  ]);
  assert.deepEqual(messages(parseConfig('{"seeds": ["9..2"]}', 'c.json').errors), [
    'c.json: seeds: 9..2 runs backwards; write 2..9',
  ]);
});

test("package.json's detdrift field is the config when there is no config file; a dependency named detdrift is not", () => {
  const withField = project({
    'package.json': { name: 'app', detdrift: { seeds: [7] }, devDependencies: { detdrift: '^1.0.0' } },
  });
  assert.deepEqual(loadConfig(withField).config.seeds, ['7']);
  const dependencyOnly = project({ 'package.json': { name: 'app', devDependencies: { detdrift: '^1.0.0' } } });
  assert.deepEqual(loadConfig(dependencyOnly), { config: EMPTY_CONFIG, file: null, errors: [], warnings: [] });
  const both = project({ 'package.json': { name: 'app', detdrift: { seeds: [7] } }, [CONFIG_FILE]: { seeds: [8] } });
  const loaded = loadConfig(both);
  assert.deepEqual(loaded.config.seeds, ['8']);
  assert.deepEqual(messages(loaded.warnings), [
    `${join(both, 'package.json')}: detdrift: ignored: ${CONFIG_FILE} is used instead`,
  ]);
  assert.deepEqual(
    loadConfig(project({ 'package.json': 'not json {' })).errors,
    [],
    "a broken package.json is npm's to report",
  );
});

test('every problem names its file and path, the value it got, and what was expected; unknown keys are warnings', () => {
  const file = 'detdrift.config.json';
  const loaded = parseConfig(
    JSON.stringify({
      seeds: [1, 2, 'x', -1, 2 ** 60, 1.5],
      command: ['node', null],
      ignore: {
        packages: ['Bad Name!', 'ok'],
        sites: ['/abs/path.js', '../up.js', 'fine.js:0', 'fine.js:3'],
        sitse: [],
      },
      controlled: 'src/a.js',
      sede: 1,
    }),
    file,
  );
  assert.deepEqual(messages(loaded.errors), [
    `${file}: seeds[2]: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got "x"`,
    `${file}: seeds[3]: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got -1`,
    `${file}: seeds[4]: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got 1152921504606847000`,
    `${file}: seeds[5]: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got 1.5`,
    `${file}: command[1]: expected a non-empty string, got null`,
    `${file}: ignore.sites[0]: expected a project-relative "path" or "path:line" (with /, no ..), got "/abs/path.js"`,
    `${file}: ignore.sites[1]: expected a project-relative "path" or "path:line" (with /, no ..), got "../up.js"`,
    `${file}: ignore.sites[2]: expected a project-relative "path" or "path:line" (with /, no ..), got "fine.js:0"`,
    `${file}: ignore.packages[0]: expected a package name without a version, e.g. "pino" or "@scope/name", got "Bad Name!"`,
    `${file}: controlled: expected a list, got "src/a.js"`,
  ]);
  assert.deepEqual(messages(loaded.warnings), [
    `${file}: sede: unknown key, ignored (did you mean "seeds"?); known: seeds, command, ignore, runners, controlled`,
    `${file}: ignore.sitse: unknown key, ignored (did you mean "sites"?); known: sites, packages`,
  ]);
  assert.deepEqual(loaded.config, EMPTY_CONFIG, 'a config with errors is not half used');
  const inManifest = parseConfig(JSON.stringify({ name: 'app', detdrift: { seeds: 'x' } }), 'package.json', 'detdrift');
  assert.deepEqual(messages(inManifest.errors), [
    'package.json: detdrift.seeds: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got "x"',
  ]);
  assert.deepEqual(messages(parseConfig('[]', file).errors), [`${file}: expected an object, got an empty list`]);
  assert.deepEqual(messages(parseConfig('{"seeds": []}', file).errors), [
    `${file}: seeds: expected at least one seed, got an empty list`,
  ]);
});

test('runners: "auto" by default, "off", or a list of known runners; anything else is an error naming them', () => {
  assert.equal(parseConfig('{}', 'c.json').config.runners, 'auto');
  assert.equal(parseConfig('{"runners": "off"}', 'c.json').config.runners, 'off');
  assert.deepEqual(parseConfig('{"runners": ["jest", "node:test"]}', 'c.json').config.runners, ['jest', 'node:test']);
  assert.deepEqual(messages(parseConfig('{"runners": ["jest", "ava"]}', 'c.json').errors), [
    'c.json: runners[1]: expected one of jest, vitest, mocha, node:test, tsx, ts-node, got "ava"',
  ]);
  assert.deepEqual(messages(parseConfig('{"runners": true}', 'c.json').errors), [
    'c.json: runners: expected "auto", "off" or a list of runners (jest, vitest, mocha, node:test, tsx, ts-node), got true',
  ]);
});

test('a JSON syntax error is placed at its line and column; a directory or a huge file is refused without a throw', () => {
  const broken = parseConfig('{\n  "seeds": [1,\n  ]\n}', 'c.json');
  assert.equal(broken.errors.length, 1);
  assert.match(formatProblem(broken.errors[0]!), /^c\.json: not JSON: .*line 3, column 3/);
  assert.match(
    formatProblem(parseConfig('{"seeds": [1', 'c.json').errors[0]!),
    /^c\.json: not JSON: .*line 1, column 13/,
  );
  const dir = project({ 'package.json': { name: 'app' } });
  mkdirSync(join(dir, CONFIG_FILE));
  assert.deepEqual(messages(loadConfig(dir).errors), [`${join(dir, CONFIG_FILE)}: cannot be read: not a regular file`]);
  const huge = project({ [CONFIG_FILE]: `{"pad": "${'x'.repeat(MAX_CONFIG_BYTES)}"}` });
  assert.match(messages(loadConfig(huge).errors)[0]!, /larger than the 1048576 a config may have/);
  const deep = parseConfig(`{"seeds": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`, 'c.json');
  assert.deepEqual(messages(deep.errors), [
    'c.json: seeds[0]: expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got a list of 1',
  ]);
});

/** A project whose program prints the same thing every run, with a config. */
function configured(config: object, extra: Record<string, string | object> = {}): string {
  return project({
    'package.json': { name: 'app', version: '1.0.0' },
    'app.mjs': "console.log('same', typeof Math.random());\n",
    [CONFIG_FILE]: config,
    ...extra,
  });
}

test('check takes the command and the seeds from the config when the command line does not give them', () => {
  const dir = configured({ seeds: [3, 4], command: ['node', 'app.mjs'] });
  const out = join(dir, 'out');
  const run = runPlain([CLI, 'check', '--mode', 'control', '--no-confirm', '--out', out, '--json'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const seeds = ['3', '4'].map((seed) => readTraces(join(out, `seed-${seed}`, 'run-1')).get('0')!.header.seed);
  assert.deepEqual(seeds, ['3', '4']);
  const given = runPlain(
    [CLI, 'check', '--seed', '9', '--no-confirm', '--out', join(dir, 'given'), '--', process.execPath, 'app.mjs'],
    { cwd: dir },
  );
  assert.equal(given.code, 0, given.stderr);
  assert.equal(readTraces(join(dir, 'given', 'run-1')).get('0')!.header.seed, '9', '--seed wins over the config');
});

test('a bad config refuses check and diff with ERR_CONFIG, exit 2, every problem with its path; a warning is logged', () => {
  const dir = configured({ seeds: ['x'], command: [], ignore: { packages: [1] } });
  for (const args of [
    ['check', '--', process.execPath, 'app.mjs'],
    ['diff', 'a', 'b'],
  ]) {
    const run = runPlain([CLI, ...args], { cwd: dir });
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /^detdrift: ERR_CONFIG: the config has 3 problems:\n/);
    for (const path of ['seeds[0]', 'command', 'ignore.packages[0]'])
      assert.ok(run.stderr.includes(`${join(dir, CONFIG_FILE)}: ${path}: expected`), `${path}: ${run.stderr}`);
  }
  const warned = runPlain([CLI, 'check', '--no-confirm', '--', process.execPath, 'app.mjs'], {
    cwd: configured({ sedes: [1] }),
  });
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(warned.stderr, /^detdrift: warning: .*sedes: unknown key, ignored \(did you mean "seeds"\?\)/m);
});

test('ignored packages and sites are left out of the comparison: a dependency whose draws vary in number stops being a divergence', () => {
  // jitter draws 0, 1 or 2 extra times: the runs make different calls, but print the same.
  const jitter = 'module.exports = () => { for (let n = Math.floor(Math.random() * 3); n > 0; n--) Math.random(); };\n';
  const app =
    "import jitter from 'jitter';\nimport local from './lib/jitter.cjs';\nfor (let i = 0; i < 8; i++) { jitter(); local(); }\nconsole.log('done');\n";
  const files = {
    'app.mjs': app,
    'lib/jitter.cjs': jitter,
    'node_modules/jitter/package.json': { name: 'jitter', version: '1.0.0', main: 'index.js' },
    'node_modules/jitter/index.js': jitter,
  };
  const check = (config: object) => {
    const dir = project({ 'package.json': { name: 'app', version: '1.0.0' }, [CONFIG_FILE]: config, ...files });
    // 3 runs: the second and third both draw as often as the first at each of 8 calls with odds 3^-16
    return runPlain([CLI, 'check', '--runs', '3', '--no-confirm', '--json', '--', process.execPath, 'app.mjs'], {
      cwd: dir,
    });
  };
  const plain = check({});
  assert.equal(plain.code, 1, plain.stderr);
  assert.equal(
    (JSON.parse(plain.stdout) as { firstDivergence: { reason: string } }).firstDivergence.reason,
    'structure',
  );
  const ignored = check({ ignore: { packages: ['jitter'], sites: ['lib/jitter.cjs'] } });
  assert.equal(ignored.code, 0, ignored.stdout + ignored.stderr);
  const half = check({ ignore: { packages: ['jitter'] } });
  assert.equal(half.code, 1, 'the project file still varies');
});
