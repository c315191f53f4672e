/**
 * diffing/load.ts and rows.ts: a trace read into columns gives back every event it holds, compares
 * values as they were recorded, and refuses to show rows of a file that changed since.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Interner, loadTrace } from '../../diffing/load.js';
import { Api } from '../../tracer/apis.js';
import { Control, CONTROL_SHIFT, Tag } from '../../tracer/format.js';
import { TraceWriter } from '../../tracer/writer.js';
import { readTrace, tempDir } from '../helpers.js';
import { header } from '../synthetic.js';

const dir = tempDir('detdrift-rows-');

/** A trace of small chunks (capacity 3) with calls of every value kind, outputs between them, and a log line. */
function writeRun(name: string, run: number): string {
  const file = join(dir, `${name}.ddtrace`);
  const fd = openSync(file, 'w');
  const writer = new TraceWriter({ write: (bytes) => void writeSync(fd, bytes) }, header(), 3);
  writer.defineSite(1, { frames: [{ file: 'app.js', line: 4, column: 2, fn: null, package: null }], skipped: 0 });
  writer.defineContext(1, { key: 'feedface00000001', type: 'Timeout' });
  const events: Array<(w: TraceWriter) => boolean> = [
    (w) => w.number(Api.dateNow, Tag.f64, 1, 0, 1e12 + run),
    (w) => w.number(Api.mathRandom, Tag.f64 | (Control.detdrift << CONTROL_SHIFT), 0, 1, 0.25),
    (w) => w.bigint(Api.hrtimeBigint, 0, 0, 10n ** 18n + BigInt(run)),
    (w) => w.chunk(Api.stdout, 1, 0, 0xdeadbeef, 7, 3, 'hi\n'),
    (w) => w.digest(Api.randomBytes, 0, 1, 0x01234567, 0x89abcdef + run),
    (w) => w.object(Api.stderr, Tag.string, 0, 0, `log ${run}\n`),
    (w) => w.object(Api.readdirSync, Tag.list, 1, 0, ['b', 'a']),
    (w) => w.object(Api.hostname, Tag.string, 0, 0, 'ci-runner'),
    (w) => w.number(Api.hrtime, Tag.hrtime, 0, 1, 1234567890123),
    (w) => w.chunk(Api.stdout, 1, 0, 0xdeadbeef, 8 + run, 3, 'ho\n'),
  ];
  for (const event of events) if (event(writer)) writer.flush();
  writer.end(0);
  closeSync(fd);
  return file;
}

test('rows give back the events the reader reads, calls apart from outputs, with the calls made before each output', () => {
  const file = writeRun('a', 0);
  const trace = loadTrace(file, new Interner());
  const events = readTrace(file).events;
  assert.deepEqual(
    [...trace.calls].map((row) => row.event),
    events.filter((event) => !['output', 'log'].includes(event.family)),
  );
  assert.deepEqual(
    [...trace.outputs].map((row) => row.event),
    events.filter((event) => event.family === 'output'),
  );
  assert.deepEqual(
    [...trace.calls].map((row) => row.index),
    [0, 1, 2, 3, 4, 5, 6],
  );
  assert.deepEqual(
    [0, 1].map((position) => trace.outputs.callsBefore(position)),
    [3, 7],
  );
  assert.deepEqual([trace.calls.at(7), trace.calls.at(-1)], [undefined, undefined]);
  assert.deepEqual(
    [...trace.calls].map((row) => row.value),
    [1e12, 0.25, '1000000000000000000n', '0123456789abcdef', '["b","a"]', 'ci-runner', '[1234,567890123]'],
  );
});

test('values compare by what was recorded: equal draws agree, a changed bit, digest or text does not', () => {
  const interner = new Interner();
  const [a, b] = [loadTrace(writeRun('same-a', 0), interner), loadTrace(writeRun('same-b', 1), interner)];
  const same = (position: number) => a.calls.sameValue(position, b.calls, position);
  assert.deepEqual([0, 1, 2, 3, 4, 5, 6].map(same), [false, true, false, false, true, true, true]);
  assert.deepEqual(
    [0, 1].map((position) => a.outputs.sameValue(position, b.outputs, position)),
    [true, false],
  );
  assert.equal(a.calls.kind(0).key, b.calls.kind(0).key, 'keys are interned across the two traces');
  assert.notEqual(a.calls.ctx(0), a.calls.ctx(1), 'two contexts');
});

test('a filter keeps the trace numbering of the rows it keeps, and only their kinds', () => {
  const trace = loadTrace(writeRun('filtered', 0), new Interner());
  const clocks = trace.calls.filter((kind) => kind.spec.family === 'clock');
  assert.deepEqual(
    [...clocks].map((row) => [row.index, row.event.api]),
    [
      [0, 'Date.now'],
      [2, 'process.hrtime.bigint'],
      [6, 'process.hrtime'],
    ],
  );
  assert.deepEqual(
    clocks.kinds.map((kind) => kind.spec.api),
    ['Date.now', 'process.hrtime.bigint', 'process.hrtime'],
  );
  assert.deepEqual([...trace.calls.kindCounts().values()], [1, 1, 1, 1, 1, 1, 1]);
});

test('a trace rewritten after it was compared is refused when a report reads its rows again (ERR_TRACE_CHANGED)', () => {
  const file = writeRun('rewritten', 0);
  const trace = loadTrace(file, new Interner());
  const fd = openSync(file, 'w');
  const writer = new TraceWriter({ write: (bytes) => void writeSync(fd, bytes) }, header(), 3);
  for (let i = 0; i < 10; i++) writer.number(Api.performanceNow, Tag.f64, 0, 0, i);
  writer.end(0);
  closeSync(fd);
  assert.throws(() => trace.calls.at(4)!.event, { name: 'TraceError', code: 'ERR_TRACE_CHANGED' });
});
