/**
 * Perturb mode: on one machine, vary what differs across platforms and machines (directory order,
 * clocks, time zone, locale, timers, host identity, line endings), seeded and recorded; and
 * `detdrift check --perturb`, which names the dimension that makes a seed's runs part.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { Perturber } from '../../instrument/perturb.js';
import { parsePerturbations } from '../../instrument/perturb-dimensions.js';
import { Control } from '../../tracer/format.js';
import { appWith, causeOf, detdrift, lineOf, lines, reportOf } from '../cli-fixtures.js';
import { eventsOf, project, runHooked } from '../helpers.js';

const DATA = { 'data/b.txt': 'b', 'data/A.txt': 'A', 'data/c.txt': 'c', 'data/a.txt': 'a' };
const perturbCheck = (dir: string, dims: string, app = 'app.js') =>
  detdrift(
    [
      'check',
      '--seed',
      '11',
      ...(dims === '' ? ['--perturb'] : ['--perturb', dims]),
      '--json',
      '--',
      process.execPath,
      app,
    ],
    dir,
  );

test('a listing reaches the program in the perturbed order: shuffled (never as it was), reversed, case-insensitive', () => {
  const names = ['b.txt', 'A.txt', 'c.txt', 'a.txt'];
  const order = (variant: string) =>
    new Perturber('11', parsePerturbations(`dir-order:${variant}`)).order(names, (name) => name);
  assert.deepEqual(order('reverse'), ['a.txt', 'c.txt', 'A.txt', 'b.txt']);
  assert.deepEqual(order('case'), ['A.txt', 'a.txt', 'b.txt', 'c.txt'], 'upper-cased, ties in the order given');
  const shuffled = order('shuffle');
  assert.notDeepEqual(shuffled, names);
  assert.deepEqual([...shuffled].sort(), [...names].sort());
  assert.deepEqual(
    new Perturber('11', parsePerturbations('dir-order')).order([...names].reverse(), (name) => name),
    shuffled,
    'the order depends on the names, not on how they came',
  );
  for (let seed = 0; seed < 50; seed++) {
    assert.notDeepEqual(
      new Perturber(String(seed), parsePerturbations('dir-order')).order(['x', 'y'], (name) => name),
      ['x', 'y'],
    );
  }
  assert.throws(() => parsePerturbations('dir-order:sideways'), /dir-order:shuffle, dir-order:reverse, dir-order:case/);
  assert.throws(() => parsePerturbations('weather'), /names no dimension/);
});

test('DETDRIFT_MODE=perturb reorders readdir in every form and the reads of a Dir alike, and records what the program got', () => {
  const dir = project({
    ...DATA,
    'app.mjs': lines(
      "import fs from 'node:fs';",
      'const got = [fs.readdirSync("data"), await fs.promises.readdir("data")];',
      'got.push(await new Promise((resolve) => fs.readdir("data", (error, names) => resolve(names))));',
      'got.push(fs.readdirSync("data", { withFileTypes: true }).map((entry) => entry.name));',
      'const handle = fs.opendirSync("data"); const read = []; for (let e = handle.readSync(); e !== null; e = handle.readSync()) read.push(e.name); handle.closeSync();',
      'const iterated = []; for await (const entry of await fs.promises.opendir("data")) iterated.push(entry.name);',
      'console.log(JSON.stringify({ got, read, iterated }));',
    ),
  });
  const env = { DETDRIFT_SEED: '11', DETDRIFT_MODE: 'perturb', DETDRIFT_PERTURB: 'dir-order' };
  const run = runHooked(['app.mjs'], { cwd: dir, env });
  assert.equal(run.stderr, '');
  const { got, read, iterated } = JSON.parse(run.stdout) as { got: string[][]; read: string[]; iterated: string[] };
  const expected = new Perturber('11', parsePerturbations('dir-order')).order(
    ['A.txt', 'a.txt', 'b.txt', 'c.txt'],
    (name) => name,
  );
  for (const names of [...got, read, iterated]) assert.deepEqual(names, expected);
  const trace = run.traces.get('0')!;
  assert.deepEqual(
    eventsOf(trace, 'fs.readdir').map((event) => event.value),
    [expected, expected, expected, expected],
  );
  assert.deepEqual(
    eventsOf(trace, 'fs.opendir', 'read')
      .map((event) => event.value)
      .slice(0, 5),
    [...expected, null],
  );
  assert.deepEqual(trace.header.perturb, [
    { dimension: 'dir-order', variant: 'shuffle', detail: 'listings shuffled by the seed' },
  ]);
  assert.equal(trace.header.mode, 'perturb');
  // A repeated perturbed run is the same run: the order is the seed's.
  assert.equal(runHooked(['app.mjs'], { cwd: dir, env }).stdout, run.stdout);
});

test('host identity, os.EOL and the clocks as another machine shows them; the real values are still read and validated', () => {
  const dir = project({
    'app.js': lines(
      "const os = require('os');",
      "const fs = require('fs');",
      'const tmp = os.tmpdir();',
      'console.log(JSON.stringify({ host: os.hostname(), cpus: os.cpus().length, tmp, eol: os.EOL, tmpExists: fs.existsSync(tmp), year: new Date().getUTCFullYear(), now: Date.now() }));',
      'setTimeout(() => {}, 7);',
    ),
  });
  const plain = runHooked(['app.js'], { cwd: dir, env: { DETDRIFT_SEED: '5', DETDRIFT_MODE: 'control' } });
  const run = runHooked(['app.js'], {
    cwd: dir,
    env: {
      DETDRIFT_SEED: '5',
      DETDRIFT_MODE: 'perturb',
      DETDRIFT_PERTURB: 'hostname,cpus,tmpdir,eol,clock:skew,timers',
    },
  });
  assert.equal(run.stderr, '');
  const before = JSON.parse(plain.stdout) as Record<string, unknown>;
  const after = JSON.parse(run.stdout) as Record<string, unknown>;
  assert.match(String(after.host), /^DESKTOP-[0-9A-F]{7}$/);
  assert.notEqual(after.cpus, before.cpus);
  assert.match(String(after.tmp), / /, 'a space in the path, as in a Windows profile');
  assert.equal(after.tmpExists, true, 'the perturbed temporary directory exists');
  assert.equal(after.eol, '\r\n');
  assert.notEqual(after.year, 2024, 'the virtual clock starts in another year');
  const trace = run.traces.get('0')!;
  assert.equal(eventsOf(trace, 'os.cpus')[0]!.value, after.cpus);
  assert.equal(eventsOf(trace, 'os.hostname')[0]!.value, after.host);
  const now = eventsOf(trace, 'Date.now')[0]!;
  assert.deepEqual(
    [now.value, now.control],
    [after.now, Control.none],
    'a perturbed clock is recorded as uncontrolled, as a real one',
  );
  assert.equal(eventsOf(plain.traces.get('0')!, 'Date.now')[0]!.control, Control.detdrift);
  assert.equal(eventsOf(trace, 'setTimeout', 'schedule')[0]!.value, 7, "the program's delay, whatever the jitter");
  assert.deepEqual(
    trace.header.perturb?.map((entry) => entry.dimension),
    ['hostname', 'cpus', 'tmpdir', 'eol', 'clock', 'timers'],
  );
  assert.ok(existsSync(String(after.tmp)));
});

test('perturb mode without a dimension says so on stderr, and the program runs on', () => {
  const dir = project({ 'app.js': "console.log('ran');\n" });
  const run = runHooked(['app.js'], { cwd: dir, env: { DETDRIFT_MODE: 'perturb' } });
  assert.equal(run.stdout, 'ran\n');
  assert.match(run.stderr, /ERR_DETDRIFT_PERTURB: DETDRIFT_PERTURB is "": no dimension named/);
});

const LISTER = lines(
  "'use strict';",
  "const fs = require('fs');",
  'exports.list = function list(dir) {',
  '  return fs.readdirSync(dir).join(" ");',
  '};',
);
const LIST_APP = lines("'use strict';", "const { list } = require('lister');", "console.log('inputs:', list('data'));");

test('check --perturb finds a dependency on readdir order, at the call of the package that lists', () => {
  const dir = appWith(
    { 'app.js': LIST_APP, ...DATA },
    { name: 'lister', version: '1.2.0', files: { 'index.js': LISTER } },
  );
  const report = reportOf(perturbCheck(dir, 'dir-order,hostname'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'value',
    kind: 'call',
    api: 'fs.readdir',
    package: 'lister@1.2.0',
    site: `lister@1.2.0/index.js:${lineOf(LISTER, 'readdirSync')}`,
    firstPartySite: `app.js:${lineOf(LIST_APP, "list('data')")}`,
    confidence: 'heuristic',
  });
  assert.equal(report.perturbation?.dimension, 'dir-order');
  assert.deepEqual(
    report.perturbation?.tried.map(({ dimension, verdict }) => [dimension, verdict]),
    [
      ['dir-order', 'diverge'],
      ['hostname', 'agree'],
    ],
  );
  assert.deepEqual([report.runs.a?.mode, report.runs.b?.mode], ['perturb', 'control'], 'run A is the perturbed run');
});

const WALKER = lines(
  "'use strict';",
  "const fs = require('fs');",
  'exports.walk = function walk(dir) {',
  '  const handle = fs.opendirSync(dir);',
  '  const names = [];',
  '  for (let entry = handle.readSync(); entry !== null; entry = handle.readSync()) names.push(entry.name);',
  '  handle.closeSync();',
  '  return names;',
  '};',
);
const WALK_APP = lines(
  "'use strict';",
  "const { walk } = require('walker');",
  "console.log('first input:', walk('data').join(','));",
);

test('check --perturb finds a dependency on opendir order, at the Dir read of the package that iterates', () => {
  const dir = appWith(
    { 'app.js': WALK_APP, ...DATA },
    { name: 'walker', version: '0.3.0', files: { 'index.js': WALKER } },
  );
  const report = reportOf(perturbCheck(dir, 'dir-order:reverse'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'value',
    kind: 'call',
    api: 'fs.opendir',
    package: 'walker@0.3.0',
    site: `walker@0.3.0/index.js:${lineOf(WALKER, 'handle.readSync()')}`,
    firstPartySite: `app.js:${lineOf(WALK_APP, "walk('data')")}`,
    confidence: 'heuristic',
  });
  assert.equal(report.cause?.form, 'read');
  assert.equal(report.perturbation?.dimension, 'dir-order:reverse');
});

const TZ_APP = lines(
  "'use strict';",
  'const started = new Date();',
  "console.log('nightly run of', started.toDateString(), 'hour', started.getHours());",
);

test('check --perturb finds a dependency on the time zone, and labels it as such', () => {
  const dir = appWith({ 'app.js': TZ_APP });
  const run = perturbCheck(dir, 'dir-order,timezone,locale');
  const report = reportOf(run, 1);
  assert.equal(report.perturbation?.dimension, 'timezone');
  assert.match(report.perturbation?.detail ?? '', /^TZ=\w+\/\w+$/);
  assert.deepEqual(
    report.perturbation?.tried.map(({ dimension, verdict }) => [dimension, verdict]),
    [
      ['dir-order', 'agree'],
      ['timezone', 'diverge'],
      ['locale', 'agree'],
    ],
  );
  assert.equal(report.firstDivergence?.reason, 'output');
  assert.equal(report.cause?.kind, 'outside', 'the time zone is no intercepted value: the dimension is the finding');
  const text = detdrift(['check', '--seed', '11', '--perturb', 'timezone', '--', process.execPath, 'app.js'], dir);
  assert.equal(text.code, 1);
  assert.match(text.stdout, /perturbation {2}timezone makes the runs part: run A had TZ=/);
});

const STEADY_APP = lines(
  "'use strict';",
  "const fs = require('fs');",
  "const os = require('os');",
  "const path = require('path');",
  "const names = fs.readdirSync('data').sort();",
  "const dir = fs.opendirSync('data'); const walked = []; for (let e = dir.readSync(); e !== null; e = dir.readSync()) walked.push(e.name); dir.closeSync();",
  'const workers = Math.min(4, os.cpus().length);',
  'const scratch = path.isAbsolute(os.tmpdir()) && os.hostname().length > 0;',
  'const started = performance.now();',
  'let state = Math.random();',
  "setTimeout(() => console.log('done', state.toFixed(6), workers > 0, scratch), 60);",
  "setTimeout(() => console.log('inputs', names.join(','), walked.sort().join(','), (1234.5).toFixed(1), performance.now() >= started), 5);",
);

test('a deterministic program stays green under every perturbation', () => {
  const dir = appWith({ 'app.js': STEADY_APP, ...DATA });
  const report = reportOf(perturbCheck(dir, ''), 0);
  assert.equal(report.verdict, 'agree');
  assert.equal(report.perturbation?.dimension, null);
  assert.deepEqual(
    report.perturbation?.tried.map(({ dimension, verdict }) => [dimension, verdict]),
    [
      ['dir-order', 'agree'],
      ['timers', 'agree'],
      ['clock', 'agree'],
      ['timezone', 'agree'],
      ['locale', 'agree'],
      ['cpus', 'agree'],
      ['hostname', 'agree'],
      ['tmpdir', 'agree'],
      ['eol', 'agree'],
    ],
  );
});

test('check --perturb refuses an unknown dimension or variant with the ones it knows', () => {
  const dir = appWith({ 'app.js': "console.log('x');\n" });
  for (const dims of ['weather', 'clock:sundial']) {
    const run = perturbCheck(dir, dims);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /ERR_OPTION_VALUE: --perturb got/);
  }
});
