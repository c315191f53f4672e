import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { appWith, lines, reportOf } from '../cli-fixtures.js';
import { CLI, runPlain } from '../helpers.js';

/** A program whose runs differ each in its own way: the second reads Date.now, the third performance.now. */
const EACH_ITS_OWN = lines(
  "const run = /run-(\\d+)/.exec(process.env.DETDRIFT_TRACE ?? '')?.[1];",
  "if (run === '2') Date.now();",
  "if (run === '3') performance.now();",
  "console.log('done');",
);

test('check --runs 3 whose later runs part from the first for different causes says so', () => {
  const dir = appWith({ 'app.js': EACH_ITS_OWN });
  const args = [
    CLI,
    'check',
    '--runs',
    '3',
    '--no-confirm',
    '--out',
    join(dir, 'runs'),
    '--',
    process.execPath,
    'app.js',
  ];
  const report = reportOf(runPlain([...args.slice(0, -3), '--json', ...args.slice(-3)], { cwd: dir }), 1);
  assert.deepEqual(report.attempts, [
    { run: 2, cause: 'Date.now at app.js:2' },
    { run: 3, cause: 'performance.now at app.js:3' },
  ]);
  const text = runPlain(args, { cwd: dir });
  assert.match(
    text.stdout,
    /attempts {2}the cause differs between the runs compared with run 1:\n {2}run 2: Date\.now at app\.js:2\n {2}run 3: performance\.now at app\.js:3/,
  );
});
