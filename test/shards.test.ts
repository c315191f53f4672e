/**
 * Many seeds, many machines: `check --seeds ... --shard I/N` writes each shard's report and
 * traces, and `detdrift merge` combines the shards' reports into the verdict one run over every
 * seed gives. The real CLI on a fixture project whose seeded program diverges for some seeds only.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Report } from '../report/types.js';
import { detdrift, lineOf, lines, reportOf } from './cli-fixtures.js';
import { project, tempDir } from './helpers.js';

/**
 * A simulation seeded by its own generator, agreeing with itself for most seeds; seeds 3, 11, ...
 * also draw an unseeded Math.random, seeds 7, 15, ... a crypto.randomUUID (observe mode: real values).
 */
const APP = lines(
  "const { randomUUID } = require('node:crypto');",
  'const seed = Number(process.env.DETDRIFT_SEED);',
  'let state = seed >>> 0;',
  'const next = () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32);',
  'let total = 0;',
  'for (let step = 0; step < 20; step++) total += next();',
  'if (seed % 8 === 3) total += Math.random();',
  'if (seed % 8 === 7) total += parseInt(randomUUID().slice(0, 8), 16);',
  'console.log(total);',
);
const RANDOM_LINE = lineOf(APP, 'Math.random()');

const app = () => project({ 'package.json': { name: 'seeded-app', version: '1.0.0', private: true }, 'app.js': APP });

/** `check` over `seeds`, with more options, printing --json; its report and exit status. */
function check(dir: string, seeds: string, ...more: string[]) {
  return detdrift(['check', '--seeds', seeds, '--no-confirm', '--json', ...more, '--', process.execPath, 'app.js'], dir);
}

test("a shard checks its share of the seeds and writes its report and its traces, by seed, where an artifact upload takes them", () => {
  const dir = app();
  const out = tempDir('detdrift-shard-');
  const run = check(dir, '1..8', '--shard', '2/4', '--out', join(out, 'traces'), '--report', `json=${join(out, 'report.json')}`);
  const printed = reportOf(run, 1);
  const written = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  assert.deepEqual(written, printed, '--report json writes the report --json prints');
  assert.deepEqual(written.shard, { index: 2, total: 4, seeds: 8 });
  assert.deepEqual(written.seeds, [
    { seed: '3', verdict: 'diverge', cause: `Math.random at app.js:${RANDOM_LINE}`, bump: null },
    { seed: '4', verdict: 'not-checked', cause: null, bump: null },
  ]);
  assert.equal(written.runs.a?.seed, '3');
  assert.match(run.stderr, /detdrift: shard 2\/4: 2 of 8 seeds, 3 to 4\n/);
  assert.ok(existsSync(join(out, 'traces', 'seed-3', 'run-1', '0.ddtrace')) && existsSync(join(out, 'traces', 'seed-3', 'run-2', '0.ddtrace')));
  assert.ok(!existsSync(join(out, 'traces', 'seed-4')), 'the seed after the divergence is not run');

  const agreeing = reportOf(check(dir, '1..8', '--shard', '1/4'), 0);
  assert.deepEqual(agreeing.seeds?.map((entry) => [entry.seed, entry.verdict]), [['1', 'agree'], ['2', 'agree']]);
  assert.equal(agreeing.runs.a?.seed, '2', 'a shard that agrees reports its last seed');
});
