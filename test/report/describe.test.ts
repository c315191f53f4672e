import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { describeConfidence, describeContexts, describeDivergence, describeFrame } from '../../report/describe.js';
import { BUMP_RUN_NAMES, runNames } from '../../report/text.js';
import type { DivergenceView } from '../../report/types.js';
import { upgrade } from '../bump-fixtures.js';
import { detdrift } from '../cli-fixtures.js';
import { BUMP_REPORT, BUMP_SECTION_REPORT } from '../report-fixture.js';

const at = (a: number, b: number, reason: DivergenceView['reason']): DivergenceView => ({
  process: '0',
  index: { a, b },
  reason,
  a: null,
  b: null,
});

test('a divergence in words: what parts, and after how many recorded calls of each run; an output shows itself', () => {
  assert.equal(
    describeDivergence(at(0, 0, 'structure'), BUMP_RUN_NAMES),
    'base and head make different calls right away',
  );
  assert.equal(
    describeDivergence(at(12, 12, 'value')),
    'run A and run B get different values from the same call after 12 recorded calls',
  );
  assert.equal(describeDivergence(at(1, 197, 'output'), BUMP_RUN_NAMES), 'base and head write different output');
  assert.equal(
    describeDivergence(at(1, 197, 'structure'), BUMP_RUN_NAMES),
    'base and head make different calls after 1 recorded call in base (197 in head)',
  );
  assert.equal(
    describeDivergence(at(3, 3, 'missing')),
    'one run stops early (it crashed or was killed) after 3 recorded calls',
  );
});

test('a bump report names its runs base and head, any other run A and run B, and a report its own names first', () => {
  assert.deepEqual(runNames(BUMP_REPORT), { a: 'run A', b: 'run B' });
  assert.deepEqual(runNames(BUMP_SECTION_REPORT), { a: 'base', b: 'head' });
  assert.deepEqual(runNames({ ...BUMP_SECTION_REPORT, runNames: { a: 'linux', b: 'darwin' } }), {
    a: 'linux',
    b: 'darwin',
  });
});

test('confidence and async contexts are said in words', () => {
  assert.equal(describeConfidence('heuristic'), 'likely: chosen by a rule, not confirmed by a replay');
  assert.equal(describeConfidence('replay-confirmed'), 'confirmed by a replay');
  assert.equal(
    describeContexts(['cc49a7fa00112233', '0a1b2c3d4e5f6071']),
    'async callbacks cc49a7fa00112233 and 0a1b2c3d4e5f6071',
  );
  assert.equal(describeContexts(['root', 'cc49a7fa00112233']), 'top-level code and async callback cc49a7fa00112233');
});

/** Words a newcomer reading a bump's report cannot follow, or that name the runs as A and B. */
const JARGON = [
  /\brun [AB]\b/i,
  /call #\d/,
  /\[heuristic\]/,
  /\[context /,
  /\bstructure at\b/,
  /controlled by detdrift/,
];

test('bump on a fixture repository: every form a person reads says base and head, and no jargon', () => {
  const app = "const { roll } = require('dice');\nsetTimeout(() => console.log('rolled', roll()), 0);\n";
  const dir = upgrade(
    'npm-v3',
    app,
    'dice',
    ['1.0.0', 'exports.roll = function roll() {\n  return 4;\n};\n'],
    ['1.0.1', 'exports.roll = function roll() {\n  return 4 + Math.random();\n};\n'],
  );
  const files = ['summary', 'comment', 'html', 'sarif'];
  const reports = files.flatMap((format) => ['--report', `${format}=out/${format}`]);
  const run = detdrift(
    [
      'bump',
      '--base',
      'HEAD~1',
      '--seed',
      '7',
      '--install',
      `${process.execPath} materialize.cjs`,
      '--report',
      'github',
      ...reports,
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );
  assert.equal(run.code, 1, run.stderr);
  assert.match(
    run.stdout,
    /^cause {2}Math\.random in dice@1\.0\.1, seen in head\n {7}why: a call the new dependency tree makes and the old one does not \(likely: chosen by a rule, not confirmed by a replay\)$/m,
  );
  assert.match(
    run.stdout,
    /^first divergence {2}base and head make different calls after \d+ recorded calls?\n {2}base: /m,
  );
  assert.match(
    run.stdout,
    /^ {2}head: Math\.random = [\d.]+ \(value from the seed\) at dice@1\.0\.1\/index\.js:2:\d+ roll$/m,
  );
  assert.match(run.stdout, /^calls per API +base +head$/m);
  const forms: Record<string, string> = {
    terminal: run.stdout,
    ...Object.fromEntries(files.map((format) => [format, readFileSync(join(dir, 'out', format), 'utf8')])),
  };
  for (const [form, text] of Object.entries(forms)) {
    for (const word of JARGON) assert.doesNotMatch(text, word, `${form} says ${word}`);
  }
  assert.match(forms.summary!, /^\| {2}\| base \| head \|$/m);
  assert.match(forms.html!, /<th>base<\/th><th>head<\/th>/);
});

test('a source-mapped frame: its original position, with where it ran only when asked (--verbose), and a map not read always said', () => {
  const frame = { file: 'src/roll.ts', line: 4, column: 9, fn: 'roll', package: null };
  const mapped = { ...frame, generated: { file: 'dist/roll.js', line: 12, column: 3 } };
  assert.equal(describeFrame(mapped), 'src/roll.ts:4:9 roll');
  assert.equal(describeFrame(mapped, true), 'src/roll.ts:4:9 roll (generated: dist/roll.js:12:3)');
  const unread = { ...frame, sourceMapError: 'no such file' };
  assert.equal(describeFrame(unread), 'src/roll.ts:4:9 roll (source map not read: no such file)');
});
