import assert from 'node:assert/strict';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bump, bumpText, direct, json, repository, upgrade } from '../bump-fixtures.js';
import { detdrift } from '../cli-fixtures.js';
import { project } from '../helpers.js';
import { nm, type Tree } from '../lockfile-fixtures.js';

test('the default mode, control, answers for an app whose library draws entropy: it reports the bump, not "already nondeterministic"; observe mode names the draw and points at control', () => {
  const app = "const { id } = require('rand-id');\nconsole.log('id', id());\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'rand-id',
    ['1.0.0', 'exports.id = () => Math.random().toString(36).slice(2, 10);\n'],
    ['2.0.0', "const { randomBytes } = require('node:crypto');\nexports.id = () => randomBytes(4).toString('hex');\n"],
  );
  const report = json(bump(dir), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.deepEqual(
    [report.cause.api, report.cause.site.file, report.cause.site.line],
    ['crypto.randomBytes', 'rand-id@2.0.0/index.js', 2],
  );
  assert.deepEqual(report.cause.bump, {
    name: 'rand-id',
    from: '1.0.0',
    to: '2.0.0',
    kind: 'major',
    path: ['rand-id'],
  });

  assert.deepEqual(report.next, [
    {
      kind: 'seed-in-code',
      api: 'crypto.randomBytes',
      package: 'rand-id@2.0.0',
      site: report.cause.firstPartySite,
    },
  ]);
  assert.equal(report.cause.firstPartySite.file, 'app.js');

  // In observe mode base's own two runs part at its draw: the report shows them, and points at control mode.
  const observed = json(bump(dir, '--mode', 'observe'), 1);
  assert.equal(observed.bump.verdict, 'already-nondeterministic');
  assert.deepEqual(observed.runNames, { a: 'base run 1', b: 'base run 2' });
  assert.deepEqual(
    [observed.cause.api, observed.cause.site.file, observed.cause.site.line],
    ['Math.random', 'rand-id@1.0.0/index.js', 1],
  );
  assert.deepEqual(observed.next, [{ kind: 'control-mode', api: 'Math.random', job: 'bump' }]);
  const text = bumpText(dir, '--mode', 'observe').stdout;
  assert.match(text, /next +leave out --mode observe: control mode, bump's default, feeds Math\.random from the seed/);
});

test('npm v3, observe mode: a patch that adds a Math.random made the seed nondeterministic, blamed on the new call', () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'dice',
    ['1.0.0', 'exports.roll = function roll() {\n  return 4;\n};\n'],
    ['1.0.1', 'exports.roll = function roll() {\n  return 4 + Math.random();\n};\n'],
  );
  const report = json(bump(dir, '--mode', 'observe'), 1);
  assert.equal(report.bump.verdict, 'made-nondeterministic');
  assert.deepEqual(report.bump.changes, [
    { name: 'dice', from: '1.0.0', to: '1.0.1', kind: 'patch', direct: true, path: ['dice'] },
  ]);
  assert.equal(report.cause.api, 'Math.random');
  assert.deepEqual(
    [report.cause.site.file, report.cause.site.line, report.cause.firstPartySite.file],
    ['dice@1.0.1/index.js', 2, 'app.js'],
  );
  assert.deepEqual(report.cause.bump, { name: 'dice', from: '1.0.0', to: '1.0.1', kind: 'patch', path: ['dice'] });
  assert.deepEqual(
    report.bump.addedSites.map((site: { api: string; file: string; line: number; reached: boolean }) => [
      site.api,
      site.file,
      site.line,
      site.reached,
    ]),
    [['Math.random', 'index.js', 2, true]],
  );
});

test('pnpm: a transitive bump two levels down is attributed to the leaf, with the path to it', () => {
  const tree = (leaf: string): Tree => ({
    dependencies: { 'app-dep': '^1.0.0' },
    installs: {
      [nm('app-dep')]: { version: '1.0.0', dependencies: { mid: '^1.0.0' } },
      [nm('mid')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
      [nm('leaf')]: { version: leaf },
    },
  });
  const common = {
    'app-dep@1.0.0': "exports.run = () => require('mid').run();\n",
    'mid@1.0.0': "exports.run = () => require('leaf').stamp();\n",
  };
  const app = "console.log(require('app-dep').run());\n";
  const dir = repository(
    'pnpm',
    app,
    { tree: tree('1.0.0'), packages: { ...common, 'leaf@1.0.0': "exports.stamp = () => 'stamp';\n" } },
    { tree: tree('1.1.0'), packages: { ...common, 'leaf@1.1.0': "exports.stamp = () => 'stamp ' + Date.now();\n" } },
  );
  const report = json(bump(dir), 1);
  assert.equal(report.cause.api, 'Date.now');
  assert.equal(report.cause.site.file, 'leaf@1.1.0/index.js');
  assert.deepEqual(report.cause.bump, {
    name: 'leaf',
    from: '1.0.0',
    to: '1.1.0',
    kind: 'minor',
    path: ['app-dep', 'mid', 'leaf'],
  });
  const change = report.bump.changes.find((candidate: { name: string }) => candidate.name === 'leaf');
  assert.deepEqual([change.direct, change.path], [false, ['app-dep', 'mid', 'leaf']]);
});

test("pnpm's own layout: a transitive package in node_modules/.pnpm gets its code frame, and the sites its new version added are scanned", () => {
  const tree = (leaf: string): Tree => ({
    dependencies: { 'app-dep': '^1.0.0' },
    installs: {
      [nm('app-dep')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
      [nm('leaf')]: { version: leaf },
    },
  });
  const common = { 'app-dep@1.0.0': "exports.run = () => require('leaf').stamp();\n" };
  const dir = repository(
    'pnpm',
    "console.log(require('app-dep').run());\n",
    { tree: tree('1.0.0'), packages: { ...common, 'leaf@1.0.0': "exports.stamp = () => 'stamp';\n" } },
    {
      tree: tree('1.1.0'),
      packages: { ...common, 'leaf@1.1.0': "exports.stamp = () => {\n  return 'stamp ' + Date.now();\n};\n" },
    },
    'pnpm',
  );
  assert.ok(
    existsSync(join(dir, 'node_modules/.pnpm/leaf@1.1.0/node_modules/leaf/index.js')),
    'the fixture is laid out as pnpm does',
  );
  const report = json(bump(dir), 1);
  assert.deepEqual(
    [report.cause.api, report.cause.site.file, report.cause.site.line],
    ['Date.now', 'leaf@1.1.0/index.js', 2],
  );
  assert.deepEqual(report.cause.bump, {
    name: 'leaf',
    from: '1.0.0',
    to: '1.1.0',
    kind: 'minor',
    path: ['app-dep', 'leaf'],
  });
  assert.deepEqual(
    report.cause.source?.lines.find(([line]: [number]) => line === 2),
    [2, "  return 'stamp ' + Date.now();"],
  );
  assert.deepEqual(
    report.bump.addedSites.map((site: { api: string; line: number; reached: boolean }) => [
      site.api,
      site.line,
      site.reached,
    ]),
    [['Date.now', 2, true]],
  );
});

test('yarn classic, observe mode: a bump that moves from a stubbed Date.now to performance.now is found', () => {
  const app =
    "Date.now = () => 1_700_000_000_000; // the harness pins its clock\nconsole.log(require('clock-id').id());\n";
  const dir = upgrade(
    'yarn-classic',
    app,
    'clock-id',
    ['1.4.0', "exports.id = () => 'id-' + Date.now();\n"],
    ['2.0.0', "exports.id = () => 'id-' + Math.round(performance.now() * 1000);\n"],
  );
  const report = json(bump(dir, '--mode', 'observe'), 1);
  assert.equal(report.bump.verdict, 'made-nondeterministic');
  assert.equal(report.cause.api, 'performance.now');
  assert.deepEqual(report.cause.bump, {
    name: 'clock-id',
    from: '1.4.0',
    to: '2.0.0',
    kind: 'major',
    path: ['clock-id'],
  });
});

test('yarn berry (a version-10 lockfile, as yarn 4 writes today): a bump that changes nothing the seed runs is no alarm', () => {
  const app = "console.log(require('quiet').answer());\n";
  const dir = upgrade(
    'yarn-berry',
    app,
    'quiet',
    ['1.0.0', 'exports.answer = () => 42;\n'],
    ['1.0.1', '// faster now\nexports.answer = () => 42;\n'],
  );
  const report = json(bump(dir), 0);
  assert.equal(report.verdict, 'agree');
  assert.equal(report.bump.verdict, 'unchanged');
  assert.deepEqual(
    report.bump.changes.map((change: { name: string; kind: string }) => [change.name, change.kind]),
    [['quiet', 'patch']],
  );
  assert.equal(report.cause, null);
});

test('npm v2, observe mode: a downgrade that removes a draw is a downgrade, and base was the nondeterministic one', () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  const dir = upgrade(
    'npm-v2',
    app,
    'dice',
    ['1.1.0', 'exports.roll = function roll() {\n  return Math.random();\n};\n'],
    ['1.0.0', 'exports.roll = function roll() {\n  return 0.5;\n};\n'],
  );
  const report = json(bump(dir, '--mode', 'observe'), 1);
  assert.equal(report.bump.verdict, 'already-nondeterministic');
  assert.equal(report.bump.changes[0].kind, 'downgrade');
  assert.equal(report.cause.api, 'Math.random');
  assert.equal(report.cause.run, 'a');
  assert.equal(report.cause.site.file, 'dice@1.1.0/index.js');
  assert.deepEqual(report.cause.bump, { name: 'dice', from: '1.1.0', to: '1.0.0', kind: 'downgrade', path: ['dice'] });
});

test('bad input: no lockfile, and a base ref that does not exist, exit 2 with their codes', () => {
  const bare = project({ 'package.json': { name: 'x', version: '1.0.0' }, 'app.js': '' });
  assert.match(
    detdrift(['bump', '--base', 'HEAD~1', '--', process.execPath, 'app.js'], bare).stderr,
    /ERR_LOCKFILE_MISSING/,
  );
  const dir = repository(
    'npm-v3',
    'console.log(1);\n',
    { tree: direct('q', '1.0.0'), packages: { 'q@1.0.0': '' } },
    { tree: direct('q', '1.0.0'), packages: { 'q@1.0.0': '' } },
  );
  const run = detdrift(['bump', '--base', 'no-such-ref', '--', process.execPath, 'app.js'], dir);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /ERR_GIT_REF: --base no-such-ref is not a commit/);
});

test('a stale node_modules (lockfile bumped, old version still installed) is refused before anything runs, in every format: ERR_INSTALL_STALE', () => {
  const tree = (leaf: string): Tree => ({
    dependencies: { 'app-dep': '^1.0.0' },
    installs: {
      [nm('app-dep')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
      [nm('leaf')]: { version: leaf },
    },
  });
  const packages = (leaf: string) => ({
    'app-dep@1.0.0': "exports.run = () => require('leaf').stamp();\n",
    [`leaf@${leaf}`]: "exports.stamp = () => 'stamp';\n",
  });
  for (const format of ['npm-v3', 'pnpm', 'yarn-classic', 'yarn-berry'] as const) {
    const dir = repository(
      format,
      "console.log(require('app-dep').run());\n",
      { tree: tree('1.0.0'), packages: packages('1.0.0') },
      { tree: tree('1.1.0'), packages: packages('1.1.0') },
    );
    // The head commit's lockfile says leaf 1.1.0; the tree on disk still has the base's 1.0.0.
    rmSync(join(dir, 'node_modules/leaf'), { recursive: true });
    cpSync(join(dir, 'vendor/leaf-1.0.0'), join(dir, 'node_modules/leaf'), { recursive: true });
    const run = bump(dir);
    assert.equal(run.code, 2, `${format}: ${run.stderr}`);
    assert.match(
      run.stderr,
      /ERR_INSTALL_STALE: head \(the working tree\): node_modules in .* does not match .*: leaf is locked at 1\.1\.0, installed at 1\.0\.0\. Run .*materialize\.cjs there, then bump again/,
      format,
    );
    assert.doesNotMatch(
      run.stderr,
      /checking out|recording/,
      `${format}: refused before installing or recording anything`,
    );
  }
});

test('an --install command that leaves the base without its dependencies is refused with the packages missing', () => {
  const dir = repository(
    'npm-v3',
    "console.log(require('dice').roll());\n",
    { tree: direct('dice', '1.0.0'), packages: { 'dice@1.0.0': 'exports.roll = () => 4;\n' } },
    { tree: direct('dice', '1.0.1'), packages: { 'dice@1.0.1': 'exports.roll = () => 4;\n' } },
  );
  const run = detdrift(
    ['bump', '--base', 'HEAD~1', '--install', `${process.execPath} -e 0`, '--', process.execPath, 'app.js'],
    dir,
  );
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /ERR_INSTALL_STALE: HEAD~1: node_modules in .* does not match HEAD~1:package-lock\.json: dice is locked at 1\.0\.0, not installed\. The install command \(.* -e 0\) must install what the lockfile names/,
  );
  assert.doesNotMatch(run.stderr, /recording/);
});

test('a lockfile detdrift cannot read is refused before anything is installed or recorded', () => {
  const dir = repository(
    'yarn-berry',
    "console.log(require('quiet').answer());\n",
    { tree: direct('quiet', '1.0.0'), packages: { 'quiet@1.0.0': 'exports.answer = () => 42;\n' } },
    { tree: direct('quiet', '1.0.1'), packages: { 'quiet@1.0.1': 'exports.answer = () => 42;\n' } },
  );
  writeFileSync(
    join(dir, 'yarn.lock'),
    readFileSync(join(dir, 'yarn.lock'), 'utf8').replace('  version: 10\n', '  version: 11\n'),
  );
  const run = bump(dir);
  assert.equal(run.code, 2, run.stderr);
  assert.match(
    run.stderr,
    /ERR_LOCKFILE_VERSION: .*yarn\.lock:5: __metadata version "11": versions 4 to 10 \(yarn 2 to 4\) are supported/,
  );
  assert.doesNotMatch(run.stderr, /checking out|recording/);
});

test('bump --report github annotates the first uncontrolled call and the bumped line in package.json', () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'dice',
    ['1.0.0', 'exports.roll = () => 4;\n'],
    ['1.0.1', 'exports.roll = () => 4 + Math.random();\n'],
  );
  const run = detdrift(
    [
      'bump',
      '--base',
      'HEAD~1',
      '--install',
      `${process.execPath} materialize.cjs`,
      '--report',
      'github',
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );
  assert.equal(run.code, 1, run.stderr);
  const errors = run.stdout.split('\n').filter((line) => line.startsWith('::error '));
  assert.ok(
    errors.some((line) => line.startsWith('::error file=app.js,line=2,')),
    run.stdout,
  );
  assert.ok(
    errors.some((line) => line.startsWith('::error file=package.json,')),
    run.stdout,
  );
  assert.ok(
    errors.every((line) => line.includes('Math.random in dice@1.0.1')),
    run.stdout,
  );
});

test('a bump that adds a Date.now late in a loop, on a call the sampling skips: a replay of head takes its stack, and the cause names the line, the package and the bump', () => {
  // v2 reads the clock on the loop's 5000th turn, after 5000 reads of the app's own: call #5000 of Date.now, unsampled.
  const app =
    "const { tick } = require('ticker');\nfor (let i = 0; i < 5000; i++) {\n  if (Date.now() < 0) throw new Error('before 1970');\n  tick(i);\n}\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'ticker',
    ['1.0.0', 'exports.tick = function tick(i) {\n  return i;\n};\n'],
    [
      '2.0.0',
      "exports.tick = function tick(i) {\n  if (i === 4999) console.log('last tick at', Date.now());\n  return i;\n};\n",
    ],
  );
  const run = bump(dir);
  const report = json(run, 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.deepEqual([report.cause.api, report.cause.run, report.cause.package], ['Date.now', 'b', 'ticker@2.0.0']);
  assert.deepEqual(
    [
      report.cause.site.file,
      report.cause.site.line,
      report.cause.site.fn,
      report.cause.firstPartySite.file,
      report.cause.firstPartySite.line,
    ],
    ['ticker@2.0.0/index.js', 2, 'tick', 'app.js', 4],
  );
  assert.deepEqual(report.cause.bump, { name: 'ticker', from: '1.0.0', to: '2.0.0', kind: 'major', path: ['ticker'] });
  assert.deepEqual([report.cause.stackNote.status, report.cause.stackNote.ordinal], ['replayed', 5000]);
  assert.deepEqual(
    report.bump.addedSites.map((site: { api: string; line: number; reached: boolean }) => [
      site.api,
      site.line,
      site.reached,
    ]),
    [['Date.now', 2, true]],
  );
  assert.equal(
    report.firstDivergence.b?.site?.file,
    'ticker@2.0.0/index.js',
    'the first divergence is the same call, with the same stack',
  );
  assert.match(run.stderr, /taking the stack of Date\.now call #5000 of process 0 \(not sampled\) by replaying run B/);
});

test('a bump that drops an old call and adds a new one elsewhere blames the call the new version adds, not the one that went with the old version', () => {
  // v1 sets a timer in the read's callback (the first call base makes); v2 drops it and reads the clock at load, in a context base never ran a call in.
  const app = "const runner = require('runner');\nrequire('node:fs').readFile(__filename, () => runner.tick());\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'runner',
    ['1.0.0', 'exports.tick = function tick() {\n  setTimeout(() => {}, 0);\n};\n'],
    [
      '2.0.0',
      "const started = Date.now();\nexports.tick = function tick() {\n  console.log('ticked', started > 0);\n};\n",
    ],
  );
  const report = json(bump(dir), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.equal(report.firstDivergence.a?.api, 'setTimeout', 'the runs part first where base set its timer');
  assert.deepEqual(
    [report.cause.api, report.cause.run, report.cause.site.file, report.cause.site.line],
    ['Date.now', 'b', 'runner@2.0.0/index.js', 1],
  );
  assert.equal(report.cause.rule, 'a call the new dependency tree makes and the old one does not');
  assert.deepEqual(report.cause.bump, { name: 'runner', from: '1.0.0', to: '2.0.0', kind: 'major', path: ['runner'] });
});

test("a program that prints its own path runs in base's worktree and in head's folder: the paths differ, the bump changed nothing, and the verdict says so", () => {
  const app =
    "const { answer } = require('quiet');\nconsole.log(answer(), 'from', __filename);\nconsole.error(new Error('a failing test').stack.split('\\n')[1]);\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'quiet',
    ['1.0.0', 'exports.answer = () => 42;\n'],
    ['1.0.1', '// faster now\nexports.answer = () => 42;\n'],
  );
  const report = json(bump(dir), 0);
  assert.equal(report.bump.verdict, 'unchanged');
  assert.equal(report.cause, null);
});

test("a bump that fixes a crash in base is not blamed on the first call head makes past it: the cause is base's exit", () => {
  const app = [
    "const { run } = require('lib');",
    'console.log(Date.now() > 0);',
    'run();',
    "console.log('drawn', Math.random());",
  ].join('\n');
  const dir = upgrade(
    'npm-v3',
    app,
    'lib',
    ['1.0.0', "exports.run = () => {\n  throw new Error('broken');\n};\n"],
    ['1.0.1', 'exports.run = () => {};\n'],
  );
  const report = json(bump(dir), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.equal(report.cause.kind, 'outside', 'not the Math.random head draws past the point base never passed');
  assert.equal(
    report.cause.rule,
    "the old dependency tree's run exited with code 1 after its last call, where the new one went on",
  );
});

test('a bump that changes what a test prints before any call differs is not blamed on a call head makes after', () => {
  const app = [
    "const { label } = require('lib');",
    'console.log(label());',
    "if (label() === 'ok') console.log('drawn', Math.random());",
  ].join('\n');
  const dir = upgrade(
    'npm-v3',
    app,
    'lib',
    ['1.0.0', "exports.label = () => 'broken';\n"],
    ['1.0.1', "exports.label = () => 'ok';\n"],
  );
  const report = json(bump(dir), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.equal(report.cause.kind, 'outside', 'not the Math.random head makes once the runs had parted');
  assert.match(report.cause.rule, /^the runs wrote different outputs before either made a call the other does not/);
});

test("one verdict decides the text and the exit status: head agrees with base once, then runs differently, and the report shows head's two runs", () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  // Head's dice rolls base's 4 on its first run and a draw after: base and head agree, head's two runs do not.
  const counted = [
    "const fs = require('fs');",
    "const file = require('path').join(__dirname, '..', '.rolls');",
    "const n = fs.existsSync(file) ? Number(fs.readFileSync(file, 'utf8')) : 0;",
    'fs.writeFileSync(file, String(n + 1));',
    'exports.roll = function roll() {',
    '  return n === 0 ? 4 : 4 + Math.random();',
    '};',
    '',
  ].join('\n');
  const dir = upgrade(
    'npm-v3',
    app,
    'dice',
    ['1.0.0', 'exports.roll = function roll() {\n  return 4;\n};\n'],
    ['1.0.1', counted],
  );
  const run = bump(dir, '--mode', 'observe');
  const report = json(run, 1);
  assert.equal(report.bump.verdict, 'made-nondeterministic');
  assert.equal(report.verdict, 'diverge');
  assert.deepEqual(report.runNames, { a: 'head run 1', b: 'head run 2' });
  assert.equal(report.cause.api, 'Math.random');
  assert.deepEqual([report.cause.site.file, report.cause.site.line], ['dice@1.0.1/index.js', 6]);

  rmSync(join(dir, 'node_modules', '.rolls'));
  const text = bumpText(dir, '--mode', 'observe');
  assert.equal(text.code, 1);
  assert.match(text.stdout, /the runs diverge/);
  assert.doesNotMatch(text.stdout, /the runs agree/);
});

test("an uncommitted draw in the project's own code during a harmless bump: the report says head's own code changed too", () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  const same = 'exports.roll = function roll() {\n  return 4;\n};\n';
  const dir = upgrade('npm-v3', app, 'dice', ['1.0.0', same], ['1.0.1', same]);
  writeFileSync(join(dir, 'app.js'), `${app}console.log('salt', Math.random());\n`);
  const report = json(bump(dir), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.deepEqual([report.cause.api, report.cause.site.file], ['Math.random', 'app.js']);
  assert.deepEqual(report.bump.ownChanges, { files: ['app.js'], uncommitted: 1 });
  assert.deepEqual(report.next[0], { kind: 'own-code-changed', files: ['app.js'], uncommitted: 1 });
  assert.match(
    bumpText(dir).stdout,
    /next +head's own code changed too \(app\.js, 1 uncommitted\): the dependency bump may not be all that changed the run/,
  );
});
