import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { codeFrameText } from '../../report/code-frame.js';
import type { SourceView } from '../../report/types.js';
import { appWith, detdrift, lines } from '../cli-fixtures.js';

const SOURCE: SourceView = {
  file: 'dice@1.0.0/index.js',
  line: 41,
  column: 18,
  lines: [
    [39, 'function roll() {'],
    [40, '  const n = 6;'],
    [41, '  return 1 + Math.floor(Math.random() * n);'],
    [42, '}'],
  ],
};

test('the code frame: the window numbered from its first line, the call marked > and ^ under its column', () => {
  assert.equal(
    codeFrameText(SOURCE),
    [
      '  39 | function roll() {',
      '  40 |   const n = 6;',
      '> 41 |   return 1 + Math.floor(Math.random() * n);',
      '     |                  ^',
      '  42 | }',
    ].join('\n'),
  );
  const { column: _column, ...older } = SOURCE;
  assert.ok(!codeFrameText(older).includes('^'), 'a report without the column has no caret');
  assert.doesNotMatch(codeFrameText(SOURCE), /\u001b\[/, 'plain unless asked');
  assert.match(codeFrameText(SOURCE, true), /\u001b\[/, 'highlighted for a terminal with colours');
});

test('check --report summary,html on a fixture project: the frame points at the draw, in every form', () => {
  const draw = '  return 1 + Math.random() * 6;';
  const dice = `exports.roll = function roll() {\n${draw}\n};\n`;
  const dir = appWith(
    { 'app.js': lines("const { roll } = require('dice');", "console.log('rolled', roll());") },
    { name: 'dice', version: '1.0.0', files: { 'index.js': dice } },
  );
  const run = detdrift(
    [
      'check',
      '--no-confirm',
      '--report',
      'summary=out/summary.md,html=out/report.html',
      '--',
      process.execPath,
      'app.js',
    ],
    dir,
  );
  assert.equal(run.code, 1, run.stderr);
  // V8 places a method call at its property: the caret is under `random`.
  const caret = `    | ${' '.repeat(draw.indexOf('random'))}^`;
  const frame = ['  1 | exports.roll = function roll() {', `> 2 | ${draw}`, caret, '  3 | };', '  4 |'];
  assert.ok(run.stdout.includes(frame.map((line) => `  ${line}`).join('\n')), run.stdout);
  assert.ok(readFileSync(join(dir, 'out', 'summary.md'), 'utf8').includes(['```js', ...frame].join('\n')));
  assert.ok(
    readFileSync(join(dir, 'out', 'report.html'), 'utf8').includes(
      `<span class="hit">&gt; 2 | ${draw}</span><span class="">${caret}</span>`,
    ),
  );
});
