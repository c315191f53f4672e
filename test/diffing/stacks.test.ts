/**
 * The stack of a blamed call its run did not sample (stacks are taken for the first 64 calls of
 * each API, then a sample): `check` takes it by replaying the run with DETDRIFT_STACKS_AT, in a
 * probe of the confirmation or in a run of its own, and never shows another call's; `diff` of
 * recorded traces says plainly that it was not sampled and how to take it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Api } from '../../tracer/apis.js';
import { Interner, loadTrace } from '../../diffing/load.js';
import { askFor, takenStack } from '../../diffing/stacks.js';
import { encodeStacksAt } from '../../tracer/settings.js';
import { CLI, project, runHooked, runPlain, tempDir } from '../helpers.js';
import { appWith, detdrift, lineOf, lines, record, reportOf } from '../cli-fixtures.js';

/** v2 reads the clock once, on the loop's 5000th turn, after 5000 reads of the app's own: call #5000 of Date.now, which the sampling skips. */
const TICKER_1 = lines("'use strict';", 'exports.tick = function tick(i) {', '  return i;', '};');
const TICKER_2 = lines(
  "'use strict';",
  'exports.tick = function tick(i) {',
  "  if (i === 4999) console.log('last tick at', Date.now());",
  '  return i;',
  '};',
);
const LOOP_APP = lines(
  "'use strict';",
  "const { tick } = require('ticker');",
  'for (let i = 0; i < 5000; i++) {',
  "  if (Date.now() < 0) throw new Error('the clock is before 1970');",
  '  tick(i);',
  '}',
);
const ticker = (version: string, source: string, app = LOOP_APP) =>
  appWith({ 'app.js': app }, { name: 'ticker', version, files: { 'index.js': source } });
const check = (dir: string, ...options: string[]) =>
  detdrift(['check', '--seed', '7', ...options, '--', process.execPath, 'app.js'], dir);

const SITE = `ticker@2.0.0/index.js:${lineOf(TICKER_2, 'Date.now')}`;
const CALLER = `app.js:${lineOf(LOOP_APP, 'tick(i)')}`;
const at = (frame: { file: string; line: number } | null | undefined) => (frame ? `${frame.file}:${frame.line}` : null);

test('check: the cause is an unsampled Date.now; a probe of the confirmation takes its stack, with no run of its own', () => {
  const run = check(ticker('2.0.0', TICKER_2), '--json');
  const report = reportOf(run, 1);
  const cause = report.cause!;
  assert.deepEqual(
    [cause.api, at(cause.site), cause.package, at(cause.firstPartySite), cause.confidence],
    ['Date.now', SITE, 'ticker@2.0.0', CALLER, 'replay-confirmed'],
  );
  assert.deepEqual(
    { ...cause.stackNote, detail: undefined },
    { status: 'replayed', process: '0', ordinal: 5000, stacksAt: `0:${Api.dateNow}:5000`, detail: undefined },
  );
  assert.match(
    cause.stackNote!.detail,
    /run A did not sample the stack of Date.now call #5000 of process 0 .*; a replay of the run took it/,
  );
  assert.equal(cause.source?.line, lineOf(TICKER_2, 'Date.now'), "the code frame is the taken site's");
  assert.doesNotMatch(run.stderr, /taking the stack/, 'no run beyond the bisection');
});

test('check --no-confirm: one replay of run A takes the stack; the terminal report says where it came from', () => {
  const dir = ticker('2.0.0', TICKER_2);
  const report = reportOf(check(dir, '--no-confirm', '--json'), 1);
  assert.deepEqual(
    [at(report.cause?.site), report.cause?.package, at(report.cause?.firstPartySite), report.cause?.stackNote?.status],
    [SITE, 'ticker@2.0.0', CALLER, 'replayed'],
  );
  const text = check(dir, '--no-confirm');
  assert.equal(text.code, 1, text.stderr);
  assert.match(text.stderr, /taking the stack of Date\.now call #5000 of process 0 \(not sampled\) by replaying run A/);
  assert.match(text.stdout, /cause {2}Date\.now in ticker@2\.0\.0, seen in run A/);
  assert.match(
    text.stdout,
    new RegExp(
      `at ${SITE.replaceAll('.', '\\.')}:\\d+ tick\\n +its stack: run A did not sample .*a replay of the run took it`,
    ),
  );
});

test("check: a re-run that parts from the recording before the call leaves the site empty and says why, never another call's", () => {
  // The third run (the re-run that takes the stack) reads the clock once more before the loop.
  const counting = lines(
    "'use strict';",
    "const fs = require('node:fs');",
    'let count = 1;',
    'while (fs.existsSync(`run-${count}`)) count++;',
    'fs.mkdirSync(`run-${count}`);',
    'if (count >= 3) Date.now();',
    ...LOOP_APP.split('\n').slice(1),
  );
  const dir = ticker('2.0.0', TICKER_2, counting);
  const summary = join(tempDir(), 'summary.md');
  const report = reportOf(check(dir, '--no-confirm', '--json', '--report', `summary=${summary}`), 1);
  const cause = report.cause!;
  assert.deepEqual(
    [cause.api, cause.site, cause.package, cause.firstPartySite, cause.source],
    ['Date.now', null, null, null, null],
  );
  assert.equal(cause.stackNote?.status, 'not-reproduced');
  assert.match(
    cause.stackNote!.detail,
    /no site is shown: the re-run parted from the recording before Date\.now call #5000: replay met Date\.now: the recording has app\.js:\d+:\d+, this run called it at app\.js:6:\d+/,
  );
  const markdown = readFileSync(summary, 'utf8');
  assert.match(markdown, /\*\*Cause\*\*: `Date\.now` at an unknown call site, seen in run A/);
  assert.match(markdown, /\| call site \| `run A did not sample the stack of Date\.now call #5000/);
});

test("diff of recorded traces: the blamed call's stack was not sampled, and the report says how to take it; doing so gives the site", () => {
  const traces = tempDir();
  const base = record(ticker('1.0.0', TICKER_1), join(traces, 'base'), ['app.js'], 'control');
  const headDir = ticker('2.0.0', TICKER_2);
  const head = record(headDir, join(traces, 'head'), ['app.js'], 'control');
  const report = reportOf(detdrift(['diff', '--json', base, head], headDir), 1);
  const cause = report.cause!;
  assert.deepEqual([cause.api, cause.run, cause.site, cause.package], ['Date.now', 'b', null, null]);
  assert.equal(report.firstDivergence?.b?.site, null);
  const stacksAt = `0:${Api.dateNow}:5000`;
  assert.deepEqual(
    { ...cause.stackNote, detail: undefined },
    { status: 'not-sampled', process: '0', ordinal: 5000, stacksAt, detail: undefined },
  );
  assert.match(
    cause.stackNote!.detail,
    new RegExp(
      `run B did not sample the stack of Date\\.now call #5000 .*replay run B with DETDRIFT_STACKS_AT=${stacksAt} set`,
    ),
  );
  const text = detdrift(['diff', base, head], headDir);
  assert.match(
    text.stdout,
    /cause {2}Date\.now at an unknown call site, seen in run B\n.*\n +call site unknown: run B did not sample the stack/,
  );
  const sarifFile = join(traces, 'x.sarif');
  assert.equal(detdrift(['diff', '--report', `sarif=${sarifFile}`, base, head], headDir).code, 1);
  const result = JSON.parse(readFileSync(sarifFile, 'utf8')).runs[0].results[0];
  assert.equal(result.properties.stackNote.status, 'not-sampled');
  assert.match(result.message.text, /Call site: run B did not sample/);

  // What the note says to do: replay run B with the stack asked for, and read the call's site.
  const out = join(traces, 'replayed');
  const replayed = runPlain([CLI, 'replay', '--out', out, head, '--', process.execPath, 'app.js'], {
    cwd: headDir,
    env: { DETDRIFT_STACKS_AT: stacksAt },
  });
  assert.equal(replayed.code, 0, replayed.stderr);
  const shown = runPlain([CLI, 'show', '--json', join(out, '0.ddtrace')], { cwd: headDir })
    .stdout.trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  const clock = shown.filter((event) => event.api === 'Date.now');
  assert.equal(clock.length, 5001);
  assert.equal(at(clock[5000].site), SITE);
});

test("an fs call that fails takes a site and records nothing: a later call's event is counted one off, and asking for its neighbours too still gives it its own stack", () => {
  const dir = project({
    'stats.cjs':
      "const fs = require('node:fs');\ntry { fs.statSync('missing'); } catch {}\nfor (let i = 0; i < 300; i++) {\n  if (i === 200) fs.statSync('b.txt');\n  else fs.statSync('a.txt');\n}\n",
    'a.txt': 'a',
    'b.txt': 'b',
  });
  const sparse = { DETDRIFT_SITES: '1/100000/0' };
  const recorded = runHooked(['stats.cjs'], { cwd: dir, env: sparse });
  const trace = loadTrace(join(recorded.traceDir, '0.ddtrace'), new Interner());
  const rows = [...trace.calls].filter((row) => row.event.api === 'fs.stat');
  assert.equal(rows.length, 300, 'the failed stat recorded no event');
  const ask = askFor(trace, '0', 'a', rows[200]!);
  assert.equal(ask.ordinal, 200);
  assert.equal(ask.at.length, 17);
  const rerun = (stacksAt: string) =>
    runHooked(['stats.cjs'], { cwd: dir, env: { ...sparse, DETDRIFT_STACKS_AT: stacksAt } }).traceDir;
  // The hook counts the failed call: ordinal 200 alone takes the stack of the call before.
  assert.match(
    takenStack(rerun(`0:${Api.statSync}:200`), ask).reason ?? '',
    /the re-run took no stack at fs\.stat call #200/,
  );
  assert.deepEqual(takenStack(rerun(encodeStacksAt(ask.at)), ask).frames?.[0]?.line, 4);
});

test("a re-run whose trace cannot be read costs the stack, with the reason, not the command's report", () => {
  const dir = tempDir('detdrift-stacks-');
  writeFileSync(join(dir, '0.ddtrace'), 'DETDRIFT-TRACE 3\nnot a header\n');
  const ask = {
    side: 'a',
    lineage: '0',
    index: 5,
    api: 'Date.now',
    form: 'call',
    apiId: Api.dateNow,
    ordinal: 5,
    value: 1,
    at: [{ lineage: '0', api: Api.dateNow, ordinal: 5 }],
    sampled: new Map(),
  } as const;
  const outcome = takenStack(dir, ask);
  assert.equal(outcome.frames, null);
  assert.match(outcome.reason ?? '', /^the re-run's trace of process 0 cannot be read: /);
});
