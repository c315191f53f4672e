/**
 * Many seeds, many machines: `check --seeds ... --shard I/N` writes each shard's report and
 * traces, and `detdrift merge` combines the shards' reports into the verdict one run over every
 * seed gives. The real CLI on a fixture project whose seeded program diverges for some seeds only.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Report } from '../../report/types.js';
import { causeOf, detdrift, lineOf, lines, reportOf } from '../cli-fixtures.js';
import { project, tempDir, type Run } from '../helpers.js';
import { upgrade } from '../bump-fixtures.js';
import { runnerReads } from '../workflow-commands.js';

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
  return detdrift(
    ['check', '--seeds', seeds, '--no-confirm', '--json', ...more, '--', process.execPath, 'app.js'],
    dir,
  );
}

test('a shard checks its share of the seeds and writes its report and its traces, by seed, where an artifact upload takes them', () => {
  const { runs, shards } = fourShards();
  const printed = reportOf(runs[1]!, 1);
  const written = JSON.parse(readFileSync(join(shards, 'shard-2', 'report.json'), 'utf8')) as Report;
  assert.deepEqual(written, printed, '--report json writes the report --json prints');
  assert.deepEqual(written.shard, { index: 2, total: 4, seeds: 8 });
  assert.deepEqual(written.seeds, [
    { seed: '3', verdict: 'diverge', cause: `Math.random at app.js:${RANDOM_LINE}`, bump: null },
    { seed: '4', verdict: 'not-checked', cause: null, bump: null },
  ]);
  assert.equal(written.runs.a?.seed, '3');
  assert.match(runs[1]!.stderr, /detdrift: shard 2\/4: 2 of 8 seeds, 3 to 4\n/);
  const traces = join(shards, 'shard-2', 'traces');
  assert.ok(
    existsSync(join(traces, 'seed-3', 'run-1', '0.ddtrace')) &&
      existsSync(join(traces, 'seed-3', 'run-2', '0.ddtrace')),
  );
  assert.ok(!existsSync(join(traces, 'seed-4')), 'the seed after the divergence is not run');

  const agreeing = reportOf(runs[0]!, 0);
  assert.deepEqual(
    agreeing.seeds?.map((entry) => [entry.seed, entry.verdict]),
    [
      ['1', 'agree'],
      ['2', 'agree'],
    ],
  );
  assert.equal(agreeing.runs.a?.seed, '2', 'a shard that agrees reports its last seed');
});

interface Sharded {
  readonly dir: string;
  /** where each shard wrote its report and traces: `shard-I/report.json`, `shard-I/traces` */
  readonly shards: string;
  /** each shard's `check --json`, in shard order */
  readonly runs: readonly Run[];
}

let sharded: Sharded | null = null;

/** The fixture's seeds 1..8 checked in four shards, each by the real CLI, as four CI jobs would (once per file). */
function fourShards(): Sharded {
  if (sharded) return sharded;
  const dir = app();
  const shards = join(dir, 'shards');
  const runs = [1, 2, 3, 4].map((index) => {
    const at = join(shards, `shard-${index}`);
    return check(
      dir,
      '1..8',
      '--shard',
      `${index}/4`,
      '--out',
      join(at, 'traces'),
      '--report',
      `json=${join(at, 'report.json')}`,
    );
  });
  return (sharded = { dir, shards, runs });
}

const shardReport = ({ shards }: Sharded, index: number) => join(shards, `shard-${index}`, 'report.json');

test('merge combines the shards into one report: the first diverging seed in list order, every seed with its verdict and shard', () => {
  const run = fourShards();
  assert.deepEqual(
    run.runs.map((shard) => shard.code),
    [0, 1, 0, 1],
    'shards 2 and 4 hold a diverging seed',
  );
  const merged = reportOf(detdrift(['merge', run.shards, '--json'], run.dir), 1);
  assert.equal(merged.schema, 'detdrift.report/1');
  assert.equal(merged.shard, null);
  assert.deepEqual(merged.seeds, [
    { seed: '1', verdict: 'agree', cause: null, bump: null, shard: 1 },
    { seed: '2', verdict: 'agree', cause: null, bump: null, shard: 1 },
    { seed: '3', verdict: 'diverge', cause: `Math.random at app.js:${RANDOM_LINE}`, bump: null, shard: 2 },
    { seed: '4', verdict: 'not-checked', cause: null, bump: null, shard: 2 },
    { seed: '5', verdict: 'agree', cause: null, bump: null, shard: 3 },
    { seed: '6', verdict: 'agree', cause: null, bump: null, shard: 3 },
    {
      seed: '7',
      verdict: 'diverge',
      cause: `crypto.randomUUID at app.js:${lineOf(APP, 'randomUUID()')}`,
      bump: null,
      shard: 4,
    },
    { seed: '8', verdict: 'not-checked', cause: null, bump: null, shard: 4 },
  ]);
  const shard2 = JSON.parse(readFileSync(shardReport(run, 2), 'utf8')) as Report;
  const replays = { replay: null, replayNote: null };
  assert.deepEqual(
    { ...merged, seeds: null, shard: null, ...replays },
    { ...shard2, seeds: null, shard: null, ...replays },
    'the report is the one about seed 3, as shard 2 wrote it',
  );
  assert.equal(merged.replay, null, "a shard's replay command is not offered to run");
  const named = reportOf(detdrift(['merge', run.shards, '--json', '--', process.execPath, 'app.js'], run.dir), 1);
  assert.equal(
    named.replay,
    `npx detdrift check --keep --mode observe --runs 2 --seed 3 -- ${process.execPath} app.js`,
    'made from the seed, the mode and the command the merge names',
  );
  const files = [4, 2, 3, 1].map((index) => shardReport(run, index));
  assert.deepEqual(
    reportOf(detdrift(['merge', ...files, '--json'], run.dir), 1),
    merged,
    'the shards in any order give the same report',
  );
});

test('four shards merged give the verdict, first diverging seed and cause that one run over every seed gives', () => {
  const run = fourShards();
  const merged = reportOf(detdrift(['merge', run.shards, '--json'], run.dir), 1);
  const whole = reportOf(check(run.dir, '1..8'), 1);
  const firstDiverging = (report: Report) => report.seeds?.find((entry) => entry.verdict === 'diverge')?.seed;
  const verdict = (report: Report) => ({
    seed: report.runs.a?.seed,
    firstDiverging: firstDiverging(report),
    ...causeOf(report),
  });
  assert.deepEqual(verdict(merged), verdict(whole));
  assert.deepEqual(verdict(whole), {
    ...verdict(whole),
    verdict: 'diverge',
    seed: '3',
    firstDiverging: '3',
    api: 'Math.random',
    site: `app.js:${RANDOM_LINE}`,
  });
  // The seeds the single run checked before it stopped have the verdicts and causes the shards gave them.
  const checked = whole.seeds!.filter((entry) => entry.verdict !== 'not-checked');
  assert.deepEqual(
    checked.map((entry) => entry.seed),
    ['1', '2', '3'],
  );
  assert.deepEqual(
    merged.seeds!.slice(0, 3).map(({ shard: _shard, ...entry }) => entry),
    checked,
  );
});

test('merge writes the other forms as check does: the summary and the page list the seeds, the annotation is at the first cause', () => {
  const run = fourShards();
  const out = tempDir('detdrift-merged-');
  const forms = ['summary', 'html', 'sarif', 'json'].map((format) => `${format}=${join(out, `merged.${format}`)}`);
  const merged = detdrift(['merge', run.shards, '--report', 'github', '--report', forms.join(',')], run.dir);
  assert.equal(merged.code, 1, merged.stderr);
  assert.match(
    merged.stdout,
    /^detdrift: the runs diverge \(process 0, observe mode, seed 3\)\n\n8 seeds in 4 shards: 2 diverge, 4 agree, 2 not checked\n/m,
  );
  assert.match(merged.stdout, /\n {2}agree {8}1\.\.2, 5\.\.6\n {2}not checked {2}4, 8 \(/);
  const [annotation] = runnerReads(merged.stdout).filter((read) => read.command === 'error');
  assert.equal(annotation?.properties.file, 'app.js');
  assert.equal(annotation?.properties.line, String(RANDOM_LINE));
  const summary = readFileSync(join(out, 'merged.summary'), 'utf8');
  assert.ok(summary.includes('**8 seeds in 4 shards: 2 diverge, 4 agree, 2 not checked**.'), summary);
  assert.ok(summary.includes(`| \`3\` | 2 | \`Math.random at app.js:${RANDOM_LINE}\` |`), summary);
  assert.ok(summary.includes('Agree: `1..2, 5..6`.'), summary);
  const page = readFileSync(join(out, 'merged.html'), 'utf8');
  assert.match(
    page,
    /<section id="seeds"><h2>Seeds<\/h2><p>8 seeds in 4 shards: 2 diverge, 4 agree, 2 not checked\.<\/p><ul><li>seed <code>3<\/code>: Math\.random at app\.js:\d+ \(shard 2\)<\/li>/,
  );
  const sarif = JSON.parse(readFileSync(join(out, 'merged.sarif'), 'utf8')) as { runs: Array<{ results: unknown[] }> };
  assert.equal(sarif.runs[0]!.results.length, 1);
  const rendered = detdrift(['report', join(out, 'merged.json'), '--format', 'terminal'], run.dir);
  assert.equal(rendered.code, 0, rendered.stderr);
  assert.ok(
    rendered.stdout.includes('8 seeds in 4 shards: 2 diverge, 4 agree, 2 not checked'),
    'report renders a merged report',
  );
});

test('shards that all agree merge to agree, exit 0, about the last seed', () => {
  const dir = app();
  const files = [1, 2].map((index) => {
    const file = join(dir, `shard-${index}.json`);
    assert.equal(check(dir, '1,2', '--shard', `${index}/2`, '--report', `json=${file}`).code, 0);
    return file;
  });
  const merged = reportOf(detdrift(['merge', ...files, '--json'], dir), 0);
  assert.equal(merged.verdict, 'agree');
  assert.equal(merged.runs.a?.seed, '2');
  assert.deepEqual(
    merged.seeds?.map((entry) => [entry.seed, entry.verdict, entry.shard]),
    [
      ['1', 'agree', 1],
      ['2', 'agree', 2],
    ],
  );
});

test('merge refuses what is not one whole set of shards with ERR_SHARDS, and a report that is none with ERR_REPORT_FILE', () => {
  const run = fourShards();
  const bad = tempDir('detdrift-bad-shards-');
  const report = (index: number) => JSON.parse(readFileSync(shardReport(run, index), 'utf8')) as Report;
  const write = (name: string, value: unknown) => {
    const file = join(bad, name);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify(value));
    return file;
  };
  const refused = (args: string[], code: string) => {
    const merged = detdrift(['merge', ...args], run.dir);
    assert.equal(merged.code, 2, merged.stderr);
    assert.equal(merged.stdout, '');
    return merged.stderr.replace(`detdrift: ${code}: `, '').trimEnd();
  };
  const [one, two, three, four] = [1, 2, 3, 4].map((index) => shardReport(run, index)) as [
    string,
    string,
    string,
    string,
  ];
  assert.equal(
    refused([one, two, four], 'ERR_SHARDS'),
    "shard 3/4 is missing: a shard's job ended before writing its report, or its artifact was not downloaded",
  );
  const copy = join(bad, 'again.json');
  copyFileSync(two, copy);
  assert.equal(refused([one, two, three, four, copy], 'ERR_SHARDS'), `shard 2/4 is both ${two} and ${copy}`);
  const otherList = write('other-list.json', { ...report(3), shard: { index: 3, total: 4, seeds: 9 } });
  assert.equal(
    refused([one, two, otherList, four], 'ERR_SHARDS'),
    `${one} is shard 1/4 of 8 seeds, ${otherList} shard 3/4 of 9: merge the shards of one seed list`,
  );
  const unsharded = write('unsharded.json', { ...report(1), shard: null, seeds: null });
  assert.match(
    refused([unsharded, two, three, four], 'ERR_SHARDS'),
    /^reports of no shard \(.*unsharded\.json\) and shards cannot be merged/,
  );
  const short = write('short.json', { ...report(2), seeds: report(2).seeds!.slice(0, 1) });
  assert.equal(
    refused([one, short, three, four], 'ERR_SHARDS'),
    `${short} (shard 2/4) lists 1 seeds; its share of 8 is 2`,
  );
  const twice = write('twice.json', { ...report(1), shard: null, seeds: null });
  assert.equal(refused([unsharded, twice], 'ERR_SHARDS'), `seed 2 is in both ${unsharded} and ${twice}`);
  const forged = write('forged.json', {
    ...report(1),
    seeds: [{ seed: '::error::owned', verdict: 'agree', cause: null, bump: null }, report(1).seeds![1]],
  });
  assert.match(
    refused([forged, two, three, four], 'ERR_REPORT_FILE'),
    /forged\.json is not a detdrift report \(detdrift\.report\/1\): seeds is not a list of seeds/,
  );
  assert.match(refused([join(bad, 'none.json')], 'ERR_REPORT_FILE'), /^no report at .*none\.json$/);
  mkdirSync(join(bad, 'empty'));
  assert.match(refused([join(bad, 'empty')], 'ERR_REPORT_FILE'), /empty holds no \*\.json report$/);
});

test('bump takes a shard of the seeds as check does; its seed list says what the bump did to each', () => {
  const app = "const { roll } = require('dice');\nconsole.log('rolled', roll());\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'dice',
    ['1.0.0', 'exports.roll = function roll() {\n  return 4;\n};\n'],
    ['1.0.1', 'exports.roll = function roll() {\n  return 4 + Math.random();\n};\n'],
  );
  const install = ['--install', `${process.execPath} materialize.cjs`];
  const run = detdrift(
    [
      'bump',
      '--base',
      'HEAD~1',
      '--mode',
      'observe',
      '--seeds',
      '1..4',
      '--shard',
      '2/2',
      ...install,
      '--json',
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );
  const report = reportOf(run, 1);
  assert.match(run.stderr, /detdrift: shard 2\/2: 2 of 4 seeds, 3 to 4\n/);
  assert.deepEqual(report.shard, { index: 2, total: 2, seeds: 4 });
  assert.deepEqual(report.seeds, [
    { seed: '3', verdict: 'diverge', cause: 'Math.random at dice@1.0.1/index.js:2', bump: 'made-nondeterministic' },
    { seed: '4', verdict: 'not-checked', cause: null, bump: null },
  ]);
  assert.equal(report.bump?.seed, '3');
});
