/**
 * `detdrift diff` end to end: the real CLI compares runs that the tests record from fixture
 * projects, and names where they part and why; bad input is refused with a code.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventsOf, readTrace, tempDir } from '../helpers.js';
import { appWith, causeOf, detdrift, lineOf, lines, listing, record, reportOf } from '../cli-fixtures.js';

const diff = (a: string, b: string, cwd: string, ...options: string[]) => detdrift(['diff', ...options, a, b], cwd);
/** A directory outside every fixture project: a report made there reads no project's sources. */
const elsewhere = tempDir();

const DIR_WALK = lines(
  "'use strict';",
  "const fs = require('node:fs');",
  '// Lists a directory in the order the file system returns its entries.',
  'exports.entries = function entries(path) {',
  '  const dir = fs.opendirSync(path);',
  '  const names = [];',
  '  let entry;',
  '  while ((entry = dir.readSync()) !== null) names.push(entry.name);',
  '  dir.closeSync();',
  '  return names;',
  '};',
);
const REPORT_APP = lines(
  "'use strict';",
  "const { readFileSync } = require('node:fs');",
  "const { entries } = require('dir-walk');",
  'const dir = process.argv[2];',
  "console.log(entries(dir).map((name) => readFileSync(`${dir}/${name}`, 'utf8')).join(','));",
);

test('output in opendir order: the runs part at the first directory read, in the package that reads it', () => {
  const dir = appWith(
    { 'app.js': REPORT_APP },
    { name: 'dir-walk', version: '3.1.0', files: { 'index.js': DIR_WALK } },
  );
  // On ext4 (this machine) opendir returns entries in the order of a hash of their names, whatever
  // order they were created in, so one set of names cannot be listed in two orders here. The two
  // directories hold the same records under other names instead; the program's output differs
  // only because the listing order does (records-b lists them in reverse).
  const records = ['north', 'east', 'south', 'west'];
  for (const name of ['records-a', 'records-b']) mkdirSync(join(dir, name));
  records.forEach((record, i) => writeFileSync(join(dir, 'records-a', `a${i}.txt`), record));
  const inOrderA = listing(join(dir, 'records-a')).map((name) => readFileSync(join(dir, 'records-a', name), 'utf8'));
  for (let i = 0; i < records.length; i++) writeFileSync(join(dir, 'records-b', `b${i}.txt`), '');
  listing(join(dir, 'records-b')).forEach((name, i) =>
    writeFileSync(join(dir, 'records-b', name), inOrderA[records.length - 1 - i]!),
  );

  const traces = tempDir();
  const a = record(dir, join(traces, 'a'), ['app.js', 'records-a']);
  const b = record(dir, join(traces, 'b'), ['app.js', 'records-b']);
  const report = reportOf(diff(a, b, dir, '--json'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'value',
    kind: 'call',
    api: 'fs.opendir',
    package: 'dir-walk@3.1.0',
    site: `dir-walk@3.1.0/index.js:${lineOf(DIR_WALK, 'readSync()')}`,
    firstPartySite: `app.js:${lineOf(REPORT_APP, 'entries(dir)')}`,
    confidence: 'heuristic',
  });
  assert.equal(report.cause?.form, 'read');
  // Call 0 is the open (the same in both runs); call 1 the first entry read.
  assert.deepEqual(report.firstDivergence?.index, { a: 1, b: 1 });
  assert.deepEqual(report.cause?.value, {
    a: listing(join(dir, 'records-a'))[0],
    b: listing(join(dir, 'records-b'))[0],
  });
  const printed = (side: 'a' | 'b') => (report.outputDivergence?.[side]?.value as { head: string }).head;
  assert.equal(printed('a'), `${inOrderA.join(',')}\n`);
  assert.equal(printed('b'), `${inOrderA.slice().reverse().join(',')}\n`);
});

const WORDS_APP = lines(
  "'use strict';",
  'const started = Date.now();',
  'const salt = Math.random();',
  "console.log(process.argv.slice(2).sort().join(' '));",
  'console.log(`took ${Date.now() - started} ms, salt ${salt}`);',
);

// Regression: replay counted as reproducing run A only a run with all of A's outputs, so it pinned
// the clock behind the last line and "confirmed" it, though the runs parted at the first line.
test("a difference in the program's own logic: outside the intercepted sources, shown at the first output", () => {
  const dir = appWith({ 'app.js': WORDS_APP });
  const traces = tempDir();
  const a = record(dir, join(traces, 'a'), ['app.js', 'pear', 'apple'], 'control');
  const b = record(dir, join(traces, 'b'), ['app.js', 'pear', 'fig'], 'control');
  const report = reportOf(diff(a, b, dir, '--json'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'output',
    kind: 'outside',
    api: null,
    package: null,
    site: null,
    firstPartySite: null,
    confidence: 'heuristic',
  });
  assert.equal(report.cause?.value, null);
  // Replaying run A pins its values, but run B's words were never a value: A's output comes back unpinned.
  assert.equal(report.confirmation?.status, 'not-reproduced');
  assert.deepEqual(report.firstDivergence?.index, { a: 2, b: 2 }, 'after the clock read and the draw, which agree');
  assert.equal((report.firstDivergence?.a?.value as { head: string }).head, 'apple pear\n');
  assert.equal((report.firstDivergence?.b?.value as { head: string }).head, 'fig pear\n');

  const text = diff(a, b, dir);
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stdout, /^cause {2}not explained by an intercepted source: /m);
  assert.match(
    text.stdout,
    /^first divergence {2}run A and run B write different output\n {2}run A: process\.stdout \(write\) = "apple pear\\n" /m,
  );
});

// Recorded in control mode: detdrift's seeded Math.random is the harness, and its draws are recorded
// (a Math.random the program assigns itself is its own, and is not).
const HARNESS_APP = lines(
  "'use strict';",
  "const { pick } = require('picker');",
  "for (let round = 0; round < 4; round++) console.log(pick(['north', 'south', 'east', 'west']));",
);
const PICKER_1 = lines(
  "'use strict';",
  'exports.pick = function pick(items) {',
  '  const index = Math.floor(Math.random() * items.length);',
  '  return items[index];',
  '};',
);
const PICKER_2 = lines(
  "'use strict';",
  'exports.pick = function pick(items) {',
  '  const index = Math.floor(Math.random() * items.length);',
  '  const spare = Math.random(); // 2.0.0: a tie-breaker, drawn on every pick',
  '  return spare < 2 ? items[index] : null;',
  '};',
);

const picker = (version: string, source: string) =>
  appWith({ 'app.js': HARNESS_APP }, { name: 'picker', version, files: { 'index.js': source } });

function harnessTraces(): [string, string] {
  const traces = tempDir();
  return [
    record(picker('1.0.0', PICKER_1), join(traces, 'base'), ['app.js'], 'control'),
    record(picker('2.0.0', PICKER_2), join(traces, 'head'), ['app.js'], 'control'),
  ];
}

// Regression: the extra draw used to pair with the unchanged draw beside it (same package,
// function and caller), so the report blamed the unchanged line, at whatever call ended run A.
test('an extra draw beside an unchanged one is blamed at its own line (a bump drawing twice as often from a seeded Math.random)', () => {
  const [base, head] = harnessTraces();
  const report = reportOf(diff(base, head, elsewhere, '--json'), 1);
  const extra = `picker@2.0.0/index.js:${lineOf(PICKER_2, 'const spare')}`;
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'structure',
    kind: 'call',
    api: 'Math.random',
    package: 'picker@2.0.0',
    site: extra,
    firstPartySite: `app.js:${lineOf(HARNESS_APP, 'pick([')}`,
    confidence: 'heuristic',
  });
  const first = report.firstDivergence!;
  assert.deepEqual(first.index, { a: 1, b: 1 }, "head's first pick draws again where base's second pick draws");
  assert.deepEqual([first.a?.controlledBy, first.b?.controlledBy], ['detdrift', 'detdrift']);
  assert.equal(first.a?.value, first.b?.value, "the seed's stream is the same; head just uses more of it");
  assert.equal(
    `${first.a?.site?.file}:${first.a?.site?.line}`,
    `picker@1.0.0/index.js:${lineOf(PICKER_1, 'Math.random')}`,
  );
  assert.deepEqual(report.differences.perApi, [{ key: 'Math.random', a: 4, b: 8 }]);
  assert.deepEqual(
    report.differences.perSite
      .filter((row) => row.key.startsWith(`Math.random ${extra}:`))
      .map(({ a, b }) => ({ a, b })),
    [{ a: 0, b: 4 }],
  );
});

test('a bump that only moves a draw to another line is no divergence', () => {
  const moved = PICKER_1.replace('exports.pick', '// 1.0.1: documented\nexports.pick');
  const traces = tempDir();
  const base = record(picker('1.0.0', PICKER_1), join(traces, 'base'), ['app.js'], 'control');
  const head = record(picker('1.0.1', moved), join(traces, 'head'), ['app.js'], 'control');
  const report = reportOf(diff(base, head, elsewhere, '--json'), 0);
  assert.equal(report.verdict, 'agree');
  assert.equal(
    eventsOf(readTrace(join(head, '0.ddtrace')), 'Math.random').length,
    4,
    'agreement on the draws, not on nothing seen',
  );
  assert.notEqual(report.runs.a?.lockfile, report.runs.b?.lockfile, 'the lockfiles differ: the code changed');
});

// Regression: a process only one run started made the verdict "diverge" with no first divergence
// and no cause; the text report said "process ?" and listed that same process as another one.
test('a child process only one run starts is the divergence, missing from the other run', () => {
  const app =
    "if (process.argv[2] === 'spawn') require('node:child_process').spawnSync(process.execPath, ['child.js']);\n";
  const dir = appWith({ 'app.js': app, 'child.js': 'Math.random();\n' });
  const traces = tempDir();
  const a = record(dir, join(traces, 'a'), ['app.js']);
  const b = record(dir, join(traces, 'b'), ['app.js', 'spawn']);
  const report = reportOf(diff(a, b, dir, '--json'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'missing',
    kind: 'call',
    api: 'Math.random',
    package: null,
    site: 'child.js:1',
    firstPartySite: 'child.js:1',
    confidence: 'heuristic',
  });
  assert.equal(report.firstDivergence?.process, '0.1');
  assert.deepEqual(report.firstDivergence?.index, { a: 0, b: 0 });
  assert.equal(report.firstDivergence?.a, null);
  assert.deepEqual(
    report.differences.processes.map(({ process, verdict, inA, inB }) => [process, verdict, inA, inB]),
    [
      ['0', 'agree', true, true],
      ['0.1', 'diverge', false, true],
    ],
  );
  const text = diff(a, b, dir).stdout;
  assert.ok(text.startsWith('detdrift: the runs diverge (process 0.1)\n'), text);
  assert.doesNotMatch(text, /other diverging processes/);
});

test('the same traces give the same report, byte for byte, as JSON and as text', () => {
  const [base, head] = harnessTraces();
  for (const options of [['--json'], []]) {
    const once = diff(base, head, elsewhere, ...options);
    assert.equal(once.code, 1, once.stderr);
    assert.equal(diff(base, head, elsewhere, ...options).stdout, once.stdout);
  }
});

test('diff refuses bad input with exit 2 and a one-line coded error on stderr: no stack trace', () => {
  const [base] = harnessTraces();
  const dir = tempDir();
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'empty.ddtrace'), '');
  writeFileSync(join(dir, 'app.js'), 'Math.random();\n');
  const trace = join(base, '0.ddtrace');
  const cases: Array<[string, string, string]> = [
    [join(dir, 'missing'), base, `ERR_NO_TRACES: no trace at ${join(dir, 'missing')}\n`],
    [base, join(dir, 'empty'), `ERR_NO_TRACES: ${join(dir, 'empty')} holds no trace file (*.ddtrace)\n`],
    [join(dir, 'empty'), join(dir, 'empty'), `ERR_NO_TRACES: ${join(dir, 'empty')} holds no trace file (*.ddtrace)\n`],
    [
      trace,
      join(dir, 'empty.ddtrace'),
      `ERR_TRACE_EMPTY: ${join(dir, 'empty.ddtrace')}: byte 0: expected a trace header, found an empty file (the run stopped before its first write)\n`,
    ],
    [
      join(dir, 'app.js'),
      trace,
      `ERR_TRACE_FOREIGN: ${join(dir, 'app.js')}: byte 0: expected a detdrift trace starting "DETDRIFT-TRACE 4", found another kind of file\n`,
    ],
    ...(existsSync('/dev/null')
      ? [
          [trace, '/dev/null', 'ERR_TRACE_READ: /dev/null: byte 0: expected a trace file, found a device\n'] as [
            string,
            string,
            string,
          ],
        ]
      : []),
  ];
  for (const [a, b, error] of cases) {
    const run = diff(a, b, dir, '--json');
    assert.equal(run.code, 2, `diff ${a} ${b}: ${run.stderr}`);
    assert.equal(run.stderr, `detdrift: ${error}`);
    assert.equal(run.stdout, '');
  }
});
