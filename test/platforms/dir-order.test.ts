import assert from 'node:assert/strict';
import { test } from 'node:test';
import { causeOf, lines, reportOf } from '../cli-fixtures.js';
import { CLI, project, runPlain } from '../helpers.js';

/**
 * Upgrades that make a run depend on directory order, checked with `check --perturb dir-order`
 * five times each: the cause is the listing whose order differs, in the package that lists, the
 * same every time; never the stat time of a directory the run just wrote (new in every run), nor
 * a draw of an unrelated package (`ids` draws at start-up).
 */
const IDS = lines("'use strict';", 'exports.session = Math.random().toString(36).slice(2);');

function walkerProject(walker: string, app: string): string {
  const dependencies = { walker: '1.1.0', ids: '1.0.0' };
  const files: Record<string, string | object> = {
    'package.json': { name: 'fixture-app', version: '1.0.0', private: true, dependencies },
    'package-lock.json': {
      name: 'fixture-app',
      lockfileVersion: 3,
      packages: {
        '': { name: 'fixture-app', dependencies },
        'node_modules/walker': { version: '1.1.0' },
        'node_modules/ids': { version: '1.0.0' },
      },
    },
    'node_modules/walker/package.json': { name: 'walker', version: '1.1.0', main: 'index.js' },
    'node_modules/walker/index.js': walker,
    'node_modules/ids/package.json': { name: 'ids', version: '1.0.0', main: 'index.js' },
    'node_modules/ids/index.js': IDS,
    'app.js': app,
  };
  return project(files);
}

/** The app writes the tree the walker reads: its files and directories are new in every run. */
const WRITE_DATA = lines(
  "const fs = require('node:fs');",
  "fs.rmSync('data', { recursive: true, force: true });",
  "for (const name of ['alpha', 'beta', 'gamma', 'delta', 'x/1', 'x/2', 'y/1', 'y/2', 'z/1']) {",
  "  fs.mkdirSync(require('node:path').dirname(`data/${name}`), { recursive: true });",
  '  fs.writeFileSync(`data/${name}.txt`, name);',
  '}',
);

/** 1.1.0 "is faster": it no longer sorts, and stats each entry in the order listed. */
const UNSORTED = lines(
  "'use strict';",
  "const fs = require('node:fs');",
  "const path = require('node:path');",
  'exports.list = function list(dir) {',
  '  if (!fs.statSync(dir).isDirectory()) return [];',
  '  return fs.readdirSync(dir).map((name) => `${name}:${fs.statSync(path.join(dir, name)).size}`);',
  '};',
);

/** 1.1.0 walks subdirectories in parallel and collects files as their listings complete. */
const PARALLEL = lines(
  "'use strict';",
  "const fs = require('node:fs');",
  "const path = require('node:path');",
  'exports.walk = async function walk(dir) {',
  '  const found = [];',
  '  async function visit(at) {',
  '    if (!(await fs.promises.stat(at)).isDirectory()) return;',
  '    const entries = await fs.promises.readdir(at, { withFileTypes: true });',
  '    await Promise.all(entries.map(async (entry) => {',
  '      const where = path.join(at, entry.name);',
  '      if (entry.isDirectory()) await visit(where);',
  '      else found.push(where);',
  '    }));',
  '  }',
  '  await visit(dir);',
  '  return found;',
  '};',
);

const CASES = [
  {
    name: 'a version that stops sorting readdirSync',
    walker: UNSORTED,
    app: lines(
      WRITE_DATA,
      "const { session } = require('ids');",
      "console.log(require('walker').list('data').join(' '), session.length > 0);",
    ),
    form: 'sync',
    line: 6,
  },
  {
    name: 'an async directory walk whose listings complete in another order',
    walker: PARALLEL,
    app: lines(
      WRITE_DATA,
      "const { session } = require('ids');",
      "require('walker').walk('data').then((files) => console.log(files.join(' '), session.length > 0));",
    ),
    form: 'promise',
    line: 8,
  },
];

for (const kase of CASES) {
  test(`${kase.name}: perturbing directory order names the listing in walker, five times out of five`, () => {
    const dir = walkerProject(kase.walker, kase.app);
    const causes = new Set<string>();
    for (let attempt = 0; attempt < 5; attempt++) {
      const run = runPlain(
        [CLI, 'check', '--perturb', 'dir-order', '--seed', '7', '--json', '--', process.execPath, 'app.js'],
        { cwd: dir },
      );
      const report = reportOf(run, 1);
      assert.equal(report.perturbation?.dimension, 'dir-order');
      const { kind, api, site } = causeOf(report);
      causes.add(JSON.stringify([kind, api, report.cause?.form, site]));
    }
    assert.deepEqual(
      [...causes],
      [JSON.stringify(['call', 'fs.readdir', kase.form, `walker@1.1.0/index.js:${kase.line}`])],
    );
  });
}
