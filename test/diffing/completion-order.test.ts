/**
 * Issue #20: two child processes whose callbacks complete in either order, and the callback that
 * comes second does the shared work (`if (++done === 2) ...`). `check` called that a divergence in
 * about half the runs: the work's calls were in the second child's callback context in one run and
 * in the first's in the other. The order is forced here, never raced: the program alternates it run
 * by run (a marker directory the first run makes and the next removes), and the second child's
 * input ends only once the first child has closed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appWith, causeOf, detdrift, lines, reportOf } from '../cli-fixtures.js';

const COMMAND = ['--', process.execPath, 'app.js'];
const check = (dir: string, ...flags: string[]) =>
  detdrift(['check', '--seed', '7', '--json', ...flags, ...COMMAND], dir);
const NONE = { reason: null, kind: null, api: null, package: null, site: null, firstPartySite: null, confidence: null };
const AGREED = { verdict: 'agree', ...NONE };

/** The parent: `last` is what the second callback runs, with `self` the index of the child that closed last. */
const parent = (last: string) =>
  lines(
    "'use strict';",
    "const { spawn } = require('node:child_process');",
    "const { mkdirSync, rmdirSync } = require('node:fs');",
    'let flip = false;',
    "try { mkdirSync('marker'); } catch { rmdirSync('marker'); flip = true; }",
    "const start = () => spawn(process.execPath, ['child.js'], { stdio: ['pipe', 'ignore', 'inherit'] });",
    'const children = [start(), start()];',
    'let done = 0;',
    "children.forEach((child, self) => child.on('close', () => {",
    `  if (++done === 2) { ${last} }`,
    '}));',
    'const [first, second] = flip ? [children[1], children[0]] : children;',
    "first.on('close', () => second.stdin.end());",
    'first.stdin.end();',
  );

const WAITS = lines("'use strict';", 'process.stdin.resume();', "process.stdin.on('end', () => {});");
const SAME_OUTPUT = "const x = Math.random(); console.log('both done', x < 2);";

test('children that complete in the other order, the second doing the shared work, agree with a note', () => {
  const dir = appWith({ 'app.js': parent(SAME_OUTPUT), 'child.js': WAITS });
  // The third run has the first's order: the report is about the second, which had the other.
  const report = reportOf(check(dir, '--runs', '3'), 0);
  assert.deepEqual(causeOf(report), AGREED);
  assert.equal(report.ordering?.index, 0, "the draw was made in the other child's callback");
  assert.equal(report.ordering?.moved, 1);
  assert.notEqual(report.ordering?.contexts[0], report.ordering?.contexts[1]);
  const processes = report.differences.processes.map(({ process, verdict }) => [process, verdict]);
  assert.deepEqual(processes, [
    ['0', 'agree'],
    ['0.1', 'agree'],
    ['0.2', 'agree'],
  ]);

  const terminal = detdrift(['check', '--seed', '7', '--runs', '2', ...COMMAND], dir);
  assert.equal(terminal.code, 0, terminal.stderr);
  const note =
    /note: (async callbacks \w+ and \w+|top-level code and async callback \w+|async callback \w+ and top-level code) finished in a different order \(1 call made in the other's callback\)/;
  assert.match(terminal.stdout, note);
});

test('the moved draw in control mode: the same value in both orders, so the runs agree', () => {
  const dir = appWith({ 'app.js': parent("console.log('drew', Math.random());"), 'child.js': WAITS });
  const report = reportOf(check(dir, '--mode', 'control', '--runs', '2'), 0);
  assert.equal(report.verdict, 'agree');
  assert.equal(report.ordering?.moved, 1);
});

test('children completing in the other order that changes the output still diverge, blamed on the order', () => {
  const dir = appWith({ 'app.js': parent("Math.random(); console.log('last', self);"), 'child.js': WAITS });
  const report = reportOf(check(dir, '--runs', '2', '--no-confirm'), 1);
  const { firstDivergence: first, cause } = report;
  assert.deepEqual([first?.process, first?.reason, cause?.kind], ['0', 'output', 'ordering']);
  assert.equal(report.cause?.contexts?.length, 2);
});

test('a child that really diverges still diverges when the children complete in the other order', () => {
  const drawing = lines(
    "'use strict';",
    'process.stdin.resume();',
    "process.stdin.on('end', () => console.log(Math.random()));",
  );
  const dir = appWith({ 'app.js': parent(SAME_OUTPUT), 'child.js': drawing });
  const report = reportOf(check(dir, '--runs', '2', '--no-confirm'), 1);
  assert.deepEqual(causeOf(report), {
    verdict: 'diverge',
    reason: 'output',
    kind: 'call',
    api: 'Math.random',
    package: null,
    site: 'child.js:3',
    firstPartySite: 'child.js:3',
    confidence: 'heuristic',
  });
  assert.equal(report.firstDivergence?.process, '0.1');
});
