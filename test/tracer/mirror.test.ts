import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Api } from '../../tracer/apis.js';
import { Tag } from '../../tracer/format.js';
import { arm, createMirror, takePending, type ChunkMirror } from '../../tracer/mirror.js';
import { MirroredWriter } from '../../tracer/mirrored-writer.js';
import type { TraceEvent } from '../../tracer/reader.js';
import { TraceWriter } from '../../tracer/writer.js';
import { readTrace, tempDir } from '../helpers.js';
import { header } from '../synthetic.js';

/** One record: an event (true when the chunk is due), or a definition. */
type Op = (writer: TraceWriter) => boolean | void;

const SITE = { frames: [{ file: 'app.js', line: 3, column: 7, fn: 'draw', package: null }], skipped: 0 };

/**
 * Every kind of record and run a worker writes: runs of doubles, runs of digests past the 127 a
 * mirrored chunk holds in one, runs of one, definitions between events, chunks written on the way
 * (capacity 512), an event too large for the shared memory, the end record and an event after it.
 */
function makeOps(): Op[] {
  const list: Op[] = [];
  for (let i = 0; i < 300; i++) list.push((w) => w.digest(Api.randomUUID, 0, 0, i, i * 7));
  for (let i = 0; i < 200; i++) list.push((w) => w.number(Api.mathRandom, Tag.f64, 0, 0, i / 200));
  list.push(
    (w) => w.defineSite(1, SITE),
    (w) => w.defineContextKey(1, 0x12345678, 0x9abcdef0, 'Timeout'),
  );
  for (let i = 0; i < 60; i++) {
    const [api, site, ctx] = [i % 2 ? Api.dateNow : Api.mathRandom, i % 5 === 0 ? 1 : 0, i % 3 === 0 ? 1 : 0];
    list.push((w) => w.number(api, Tag.f64, site, ctx, 1e12 + i));
  }
  for (let i = 0; i < 140; i++) list.push((w) => w.number(Api.setTimeout, Tag.uint, 0, 1, i % 4));
  for (let i = 0; i < 20; i++) list.push((w) => w.object(Api.checkpoint, Tag.string, 0, 0, `label ${i}`));
  list.push(OUTSIZED);
  for (let i = 0; i < 5; i++) list.push((w) => w.number(Api.mathRandom, Tag.f64, 0, 0, i));
  list.push((w) => void w.end(0));
  list.push((w) => w.number(Api.mathRandom, Tag.f64, 0, 0, 0.5));
  return list;
}

/** Writes the chunk as the recorder does: once the trace has ended, each event is followed by an end record. */
function due(writer: TraceWriter, index: number): void {
  if (index >= OPS.length - 2) writer.end(0);
  else writer.flush();
}

/** An event larger than the shared memory: its chunk is built apart from it, and written at once. */
const OUTSIZED: Op = (w) => w.object(Api.checkpoint, Tag.string, 0, 0, 'x'.repeat(1 << 21));

const OPS = makeOps();

interface Stopped {
  readonly events: TraceEvent[];
  readonly complete: boolean;
}

/** What the parent would leave in the file were the worker stopped now: what it wrote, then what it left. */
function stoppedHere(mirror: ChunkMirror, file: string, written: readonly Uint8Array[]): Stopped {
  const pending = takePending(mirror);
  assert.ok(pending, 'armed');
  const bytes = Buffer.concat(written);
  assert.ok(pending.position <= bytes.length);
  writeFileSync(file, Buffer.concat([bytes.subarray(0, pending.position), pending.chunk ?? new Uint8Array(0)]));
  arm(mirror, file);
  const trace = readTrace(file);
  assert.equal(trace.ending.truncated, false);
  return { events: trace.events, complete: trace.ending.complete };
}

test('a worker stopped at any record leaves, with what its parent writes, every event recorded before', () => {
  const dir = tempDir();
  const reference = join(dir, 'reference.ddtrace');
  const referenceBytes: Uint8Array[] = [];
  const plain = new TraceWriter({ write: (bytes) => void referenceBytes.push(Uint8Array.from(bytes)) }, header(), 512);
  OPS.forEach((op, index) => void (op(plain) === true && due(plain, index)));
  writeFileSync(reference, Buffer.concat(referenceBytes));
  const expected = readTrace(reference).events;

  const file = join(dir, 'worker.ddtrace');
  const mirror = createMirror();
  const written: Uint8Array[] = [];
  let recorded = 0;
  let op: Op | null = null;
  const writer = new MirroredWriter(
    {
      write(bytes) {
        written.push(Uint8Array.from(bytes));
        if (written.length === 1) return;
        // Stopped right after a chunk's write, before the mirror heard of it: the parent writes the
        // chunk again, in place; one built apart from the shared memory, as it was before its last event.
        const { events } = stoppedHere(mirror, file, written);
        const kept = op === OUTSIZED ? recorded - 1 : recorded;
        assert.deepEqual(events, expected.slice(0, kept), `after a write, at event ${recorded}`);
      },
    },
    header(),
    mirror,
    512,
  );
  arm(mirror, file);
  OPS.forEach((next, index) => {
    op = next;
    const result = op(writer);
    if (result !== undefined) recorded++;
    if (result === true) due(writer, index);
    const stopped = stoppedHere(mirror, file, written);
    assert.deepEqual(stopped.events, expected.slice(0, recorded), `stopped at event ${recorded}`);
    assert.equal(stopped.complete, index >= OPS.length - 2, 'complete from the end record on');
  });
  assert.equal(recorded, expected.length);
});
