import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { appWith, lines, reportOf } from '../cli-fixtures.js';
import { CLI, runPlain } from '../helpers.js';

/**
 * A package the config ignores keeps a cache that every other run finds (a marker directory it
 * makes and takes away again), and stats its file when it misses: the first run stats, the second
 * does not, and a replay of the first, run after both, misses again. Its stat is not the first of
 * its API, so with one stack per API (DETDRIFT_SITES=1/1000000) the run does not sample it.
 */
const CACHE = lines(
  "'use strict';",
  "const { existsSync, mkdirSync, rmdirSync, statSync } = require('node:fs');",
  'exports.warm = function warm() {',
  "  if (existsSync('.cache-marker')) return rmdirSync('.cache-marker');",
  "  mkdirSync('.cache-marker');",
  '  statSync(__filename);',
  '};',
);

const APP = lines(
  "const { statSync } = require('node:fs');",
  "statSync('package.json');",
  "require('cache').warm();",
  "console.log('done');",
);

test("runs that part only at an ignored package's unsampled call agree: a replay takes its stack", () => {
  const dir = appWith({ 'app.js': APP }, { name: 'cache', version: '1.0.0', files: { 'index.js': CACHE } });
  writeFileSync(join(dir, 'detdrift.config.json'), '{ "ignore": { "packages": ["cache"] } }\n');
  const run = runPlain([CLI, 'check', '--no-confirm', '--json', '--', process.execPath, 'app.js'], {
    cwd: dir,
    env: { DETDRIFT_SITES: '1/1000000' },
  });
  const report = reportOf(run, 0);
  assert.equal(report.verdict, 'agree');
  assert.match(run.stderr, /taking the stack of fs\.stat call #1 of process 0 \(not sampled\) by replaying run A/);
});
