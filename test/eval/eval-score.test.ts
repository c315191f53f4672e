import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  firstDifferingLine,
  namesIn,
  renderTable,
  scoreUpgrade,
  summarize,
  type BumpReport,
  type DetdriftRun,
  type RawRuns,
  type Truth,
} from '../../eval/score.js';

// Small recorded outputs, cut from a real tap 2 log and a real bump report's shape.
const TAP_A =
  'TAP version 13\n# Subtest: it exposes simulator\n    ok 1 - Simulator is exposed\nok 1 - it exposes simulator # time=3.562ms\n';
const TAP_B =
  'TAP version 13\n# Subtest: it exposes simulator\n    ok 1 - Simulator is exposed\nok 1 - it exposes simulator # time=2.574ms\n';
const TAP_OLD = 'TAP version 13\n# it exposes simulator\nok 1 Simulator is exposed\n';

const HRTIME: Truth = {
  changed: true,
  firstCall: { api: 'process.hrtime', package: 'tap', version: '2.3.4', file: 'lib/test.js', line: 64 },
  evidence: 'tap/lib/test.js:64',
};
const NOTHING: Truth = { changed: false, firstCall: null, evidence: 'none' };

function bump(verdict: string, cause: BumpReport['cause']): DetdriftRun {
  return { exitCode: verdict === 'unchanged' ? 0 : 1, report: { bump: { verdict }, cause }, ms: 4000 };
}

const AT_TEST_64 = {
  kind: 'call',
  api: 'process.hrtime',
  package: 'tap@2.3.4',
  site: { file: 'tap@2.3.4/lib/test.js', line: 64 },
};

test('the first differing line is 1-based and null for equal logs', () => {
  assert.deepEqual(firstDifferingLine(TAP_A, TAP_B), { line: 4, a: TAP_A.split('\n')[3], b: TAP_B.split('\n')[3] });
  assert.equal(firstDifferingLine(TAP_A, TAP_A), null);
  assert.deepEqual(firstDifferingLine('a\n', 'a\nb\n'), { line: 2, a: '', b: 'b' });
});

test('a raw line names an API by its last part, a package as a whole word, a file with its line', () => {
  const call = HRTIME.firstCall;
  assert.deepEqual(namesIn('ok 1 - x # time=3.5ms', call), { api: false, package: false, fileLine: false });
  assert.deepEqual(namesIn('at new Test (node_modules/tap/lib/test.js:64:29) hrtime', call), {
    api: true,
    package: true,
    fileLine: true,
  });
  assert.equal(namesIn('TAP version 13', call).package, false, 'TAP is not the package tap');
  assert.equal(namesIn('tap-parser failed', call).package, false, 'tap-parser is another package');
});

test('raw: flagged when head parts and base agrees; detdrift: detected and localized at the same call', () => {
  const raw: RawRuns = { base: [TAP_OLD, TAP_OLD], head: [TAP_A, TAP_B], ms: 1200 };
  const row = scoreUpgrade('tap 0.4.13 → 2.3.4', HRTIME, raw, bump('changed', AT_TEST_64));
  assert.equal(row.raw.verdict, 'flagged');
  assert.equal(row.outcome.raw, 'detected');
  assert.equal(row.raw.firstLine, '4: ok 1 - it exposes simulator # time=2.574ms');
  assert.deepEqual(row.raw.names, { api: false, package: false, fileLine: false });
  assert.equal(row.outcome.detdrift, 'detected');
  assert.deepEqual(row.detdrift.names, { api: true, package: true, fileLine: true });
  assert.equal(row.detdrift.cause, 'process.hrtime at tap@2.3.4/lib/test.js:64');
});

test('a cause in another package or on another line is detected but not localized', () => {
  const raw: RawRuns = { base: [TAP_OLD, TAP_OLD], head: [TAP_A, TAP_A], ms: 1 };
  const elsewhere = { ...AT_TEST_64, site: { file: 'tap@2.3.4/lib/test.js', line: 455 } };
  const row = scoreUpgrade('x', HRTIME, raw, bump('changed', elsewhere));
  assert.deepEqual(row.detdrift.names, { api: true, package: true, fileLine: false });
  assert.equal(row.outcome.raw, 'missed', 'equal head logs flag nothing');
  const base = { ...AT_TEST_64, package: 'tap@0.4.13', site: { file: 'tap@0.4.13/lib/test.js', line: 64 } };
  assert.deepEqual(
    scoreUpgrade('x', HRTIME, raw, bump('changed', base)).detdrift.names,
    {
      api: true,
      package: false,
      fileLine: false,
    },
    "base's copy of the package is not where head's call lives",
  );
  const other = {
    ...AT_TEST_64,
    package: 'tap-parser@1.0.0',
    site: { file: 'tap-parser@1.0.0/lib/test.js', line: 64 },
  };
  assert.deepEqual(scoreUpgrade('x', HRTIME, raw, bump('changed', other)).detdrift.names, {
    api: true,
    package: false,
    fileLine: false,
  });
});

test('on an upgrade that changed nothing: a changed verdict with a call is a false alarm, an output-only one is not', () => {
  const raw: RawRuns = { base: [TAP_A, TAP_B], head: [TAP_B, TAP_A], ms: 1 };
  const alarm = scoreUpgrade('y', NOTHING, raw, bump('changed', AT_TEST_64));
  assert.equal(alarm.outcome.detdrift, 'false alarm');
  assert.equal(alarm.raw.verdict, 'already', 'base already differs: the raw diff cannot judge the upgrade');
  assert.equal(alarm.outcome.raw, 'quiet');
  const outside = scoreUpgrade(
    'y',
    NOTHING,
    raw,
    bump('changed', { kind: 'outside', api: null, package: null, site: null }),
  );
  assert.equal(outside.outcome.detdrift, 'quiet');
  assert.equal(scoreUpgrade('y', NOTHING, raw, bump('unchanged', null)).detdrift.verdict, 'unchanged');
});

test('a bump that printed no report is scored as its error, never as agreeing', () => {
  const raw: RawRuns = { base: [TAP_OLD, TAP_OLD], head: [TAP_A, TAP_B], ms: 1 };
  const failed: DetdriftRun = { exitCode: 2, report: null, ms: 10, error: 'ERR_INSTALL_STALE' };
  const row = scoreUpgrade('z', HRTIME, raw, failed);
  assert.equal(row.detdrift.verdict, 'error (exit 2)');
  assert.equal(row.outcome.detdrift, 'missed');
});

test('the table has one row per upgrade and escapes pipes; the summary counts per method', () => {
  const raw: RawRuns = { base: [TAP_OLD, TAP_OLD], head: [TAP_A, 'a | b'], ms: 1500 };
  const rows = [
    scoreUpgrade('tap 0.4.13 → 2.3.4', HRTIME, raw, bump('changed', AT_TEST_64)),
    scoreUpgrade(
      'sim 0.0.9 → 0.0.10',
      NOTHING,
      { base: [TAP_OLD, TAP_OLD], head: [TAP_OLD, TAP_OLD], ms: 1 },
      bump('unchanged', null),
    ),
  ];
  const table = renderTable(rows, 'Linux').split('\n');
  assert.equal(table.length, 4);
  assert.match(table[2]!, /^\| tap 0\.4\.13 → 2\.3\.4 \| changed \| flagged: \*\*detected\*\* \|/);
  assert.match(table[2]!, /a \\\| b/);
  assert.match(table[3]!, /unchanged: \*\*quiet\*\*/);
  const counts = summarize(rows);
  assert.deepEqual(counts.detdrift, { detected: 1, missed: 0, 'false alarm': 0, quiet: 1, localized: 1 });
  assert.deepEqual(counts.raw, { detected: 1, missed: 0, 'false alarm': 0, quiet: 1, localized: 0 });
});
