import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Column } from '../../diffing/column.js';
import { Interner, loadTrace } from '../../diffing/load.js';
import { writeTrace } from '../synthetic.js';
import { tempDir } from '../helpers.js';

test('a column keeps every row it was given, across the first block growing and the blocks after it', () => {
  const column = new Column(3);
  const rows = (1 << 16) * 2 + 5;
  for (let row = 0; row < rows; row++) {
    const at = column.add();
    column.tail[at] = row;
    column.tail[at + 2] = row ^ 0x5555;
  }
  assert.equal(column.length, rows);
  for (let row = 0; row < rows; row++) {
    if (column.get(row, 0) !== row || column.get(row, 1) !== 0 || column.get(row, 2) !== (row ^ 0x5555))
      assert.fail(`row ${row} reads back ${[0, 1, 2].map((word) => column.get(row, word))}`);
  }
});

test('a folder of many short processes: their loaded tables hold bytes, not a 1.3 MB block each', () => {
  const dir = tempDir();
  const count = 200;
  const files = Array.from({ length: count }, (_, i) =>
    writeTrace(dir, `0.${i + 1}`, [
      { api: 'mathRandom', at: 'child.js:3', value: 0.5 },
      { api: 'stdout', at: 'child.js:5', value: `child ${i}\n` },
    ]),
  );
  const before = process.memoryUsage().arrayBuffers;
  const interner = new Interner();
  const loaded = files.map((file) => loadTrace(file, interner));
  const held = process.memoryUsage().arrayBuffers - before;
  assert.equal(loaded.length, count);
  // two tables a trace: a whole first block each made this 500 MiB
  assert.ok(held < 16 * 2 ** 20, `${count} loaded traces hold ${(held / 2 ** 20).toFixed(1)} MiB of buffers`);
});
