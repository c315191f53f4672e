import assert from 'node:assert/strict';
import { cpSync, mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import { RootMask } from '../../instrument/root-mask.js';
import { ROOT_TOKEN } from '../../tracer/format.js';
import { eventsOf, project, REPO, runHooked, tempDir } from '../helpers.js';

test('the mask replaces the root in text and bytes, the longer form first, and hands back what does not name it', () => {
  const root = realpathSync(tempDir());
  const mask = new RootMask(root);
  assert.equal(
    mask.text(`at ${root}/lib/a.js:3 and file://${root}/b.js`),
    `at ${ROOT_TOKEN}/lib/a.js:3 and file://${ROOT_TOKEN}/b.js`,
  );
  const bytes = Buffer.from(`${root}/x\n`);
  assert.equal(mask.bytes(bytes), `${ROOT_TOKEN}/x\n`);
  const other = Buffer.from('no path here\n');
  assert.equal(mask.bytes(other), other, 'the same view, not a copy');
  assert.equal(mask.text('plain'), 'plain');
});

test('the same project in two folders prints its paths; the program sees them, the traces (outputs and checkpoints) record the root as a token, and the runs agree', () => {
  const app = [
    "const fs = require('node:fs');",
    "console.log('here', __filename);",
    "process.stderr.write(Buffer.from(new Error('boom').stack.split('\\n').slice(0, 2).join('\\n') + '\\n'));",
    "fs.writeFileSync('out.txt', 'made in ' + __dirname + '\\n');",
    `require(${JSON.stringify(join(REPO, 'dist', 'index.cjs'))}).checkpoint('at ' + __dirname, { dir: __dirname });`,
  ].join('\n');
  const first = project({ 'app.js': app });
  const second = join(tempDir(), 'elsewhere');
  mkdirSync(second);
  cpSync(first, second, { recursive: true });
  const runs = [first, second].map((cwd) =>
    runHooked(['app.js'], { cwd, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '1' } }),
  );
  for (const [i, run] of runs.entries()) {
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.stdout.includes(join([first, second][i]!, 'app.js')), 'the program prints its real path');
    const [line] = eventsOf([...run.traces.values()][0]!, 'process.stdout');
    assert.match(JSON.stringify(line!.value), new RegExp(`here ${ROOT_TOKEN}/app\\.js`));
    const [checkpoint] = eventsOf([...run.traces.values()][0]!, 'checkpoint');
    const { head, length } = checkpoint!.value as { head: string; length: number };
    assert.deepEqual([head, length], [`at ${ROOT_TOKEN}`, JSON.stringify({ dir: ROOT_TOKEN }).length]);
  }
  assert.equal(compare(runs[0]!.traceDir, runs[1]!.traceDir).verdict, 'agree');
});
