import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Api, API_TABLE } from '../../tracer/apis.js';
import { digestBytes, digestHex } from '../../tracer/digest.js';
import { TraceError } from '../../tracer/errors.js';
import {
  CHUNK_HEADER_BYTES,
  Control,
  CONTROLLED,
  DERIVED,
  MAGIC_LINE,
  MAX_RUN,
  Rec,
  Tag,
  type TraceHeader,
} from '../../tracer/format.js';
import { crc32, crc32Table } from '../../tracer/crc32.js';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { TraceReader, type ChunkStart, type TraceEvent } from '../../tracer/reader.js';
import { TraceWriter } from '../../tracer/writer.js';
import { Controller } from '../../instrument/control.js';
import { chunksOf, readTrace, tempDir, type Trace } from '../helpers.js';
import { header } from '../synthetic.js';

const HEADER: TraceHeader = header({ node: 'v20.19.0', seed: '42' });

/** Writes through a memory sink (no hook, no file descriptor); the writer reuses its buffer, so copy. */
function write(capacity: number, fill: (writer: TraceWriter) => void): Uint8Array {
  const chunks: Uint8Array[] = [];
  const writer = new TraceWriter({ write: (bytes) => void chunks.push(bytes.slice()) }, HEADER, capacity);
  fill(writer);
  return Buffer.concat(chunks);
}

const dir = tempDir('detdrift-reader-');
function readBytes(bytes: Uint8Array, name = 'trace.ddtrace'): Trace {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return readTrace(file);
}

const digest = digestBytes(new Uint8Array([1, 2, 3]));
/** One event of every value tag, with the value the reader must give back. */
const EVENTS: Array<[(w: TraceWriter) => boolean, number, number, unknown]> = [
  [(w) => w.number(Api.dateNow, Tag.f64, 1, 2, 1718000000000.5), Api.dateNow, Tag.f64, 1718000000000.5],
  [(w) => w.number(Api.mathRandom, Tag.f64, 0, 2, 0.1234567890123456), Api.mathRandom, Tag.f64, 0.1234567890123456],
  [(w) => w.number(Api.performanceNow, Tag.f64, 0, 0, NaN), Api.performanceNow, Tag.f64, NaN],
  [(w) => w.number(Api.setTimeout, Tag.uint, 1, 0, 300), Api.setTimeout, Tag.uint, 300],
  [(w) => w.number(Api.pid, Tag.uint, 0, 0, 2 ** 53 - 1), Api.pid, Tag.uint, 2 ** 53 - 1],
  [(w) => w.bigint(Api.hrtimeBigint, 1, 2, -(2n ** 63n)), Api.hrtimeBigint, Tag.bigint, -(2n ** 63n)],
  [(w) => w.bigint(Api.hrtimeBigint, 0, 2, 2n ** 63n - 1n), Api.hrtimeBigint, Tag.bigint, 2n ** 63n - 1n],
  [(w) => w.number(Api.hrtime, Tag.hrtime, 1, 2, 1234567890123), Api.hrtime, Tag.hrtime, [1234, 567890123]],
  [(w) => w.object(Api.dateCall, Tag.string, 1, 2, 'Mon Jan 01 2024'), Api.dateCall, Tag.string, 'Mon Jan 01 2024'],
  [(w) => w.object(Api.hostname, Tag.string, 0, 0, 'é 😀 \u0000'), Api.hostname, Tag.string, 'é 😀 \u0000'],
  [(w) => w.object(Api.tmpdir, Tag.string, 0, 0, ''), Api.tmpdir, Tag.string, ''],
  [
    (w) => w.digest(Api.randomBytes, 1, 2, digest.high, digest.low),
    Api.randomBytes,
    Tag.digest,
    digestHex(digest.high, digest.low),
  ],
  [(w) => w.object(Api.readdirSync, Tag.list, 1, 0, ['b', 'a', 'ü']), Api.readdirSync, Tag.list, ['b', 'a', 'ü']],
  [(w) => w.object(Api.readdir, Tag.list, 0, 0, []), Api.readdir, Tag.list, []],
  [(w) => w.number(Api.setImmediate, Tag.none, 0, 2, 0), Api.setImmediate, Tag.none, null],
  [
    (w) => w.chunk(Api.stdout, 1, 2, digest.high, digest.low, 3, 'hé'),
    Api.stdout,
    Tag.chunk,
    { digest: digestHex(digest.high, digest.low), length: 3, head: 'hé' },
  ],
  [(w) => w.number(Api.mathRandom, Tag.f64 | CONTROLLED, 0, 0, 0.5), Api.mathRandom, Tag.f64, 0.5],
];
/**
 * Control mode's values for seed 42, drawn as the hook draws them (instrument/control.ts): the
 * writer leaves them out and the reader draws them again. They come first in `sample`, so the
 * controlled 0.5 of EVENTS, which is not the seed's next draw, is written out.
 */
function controlled(): Array<[(w: TraceWriter) => boolean, number, number, unknown]> {
  const controller = new Controller(HEADER.seed!);
  const random = controller.stream('Math.random');
  const draws = Array.from({ length: 5 }, () => random.double());
  const wall = Controller.wallMs(controller.tick());
  const mono = controller.tick();
  const big = BigInt(controller.tick());
  const hr = controller.tick();
  controller.tick(); // Date(): its string is kept, its read moves the clock
  const later = Controller.wallMs(controller.tick());
  return [
    ...draws.map((value): [(w: TraceWriter) => boolean, number, number, unknown] => [
      (w) => w.number(Api.mathRandom, Tag.f64 | CONTROLLED, 0, 2, value),
      Api.mathRandom,
      Tag.f64,
      value,
    ]),
    [(w) => w.number(Api.dateNow, Tag.f64 | CONTROLLED, 1, 2, wall), Api.dateNow, Tag.f64, wall],
    [
      (w) => w.number(Api.performanceNow, Tag.f64 | CONTROLLED, 0, 2, mono / 1e6),
      Api.performanceNow,
      Tag.f64,
      mono / 1e6,
    ],
    [(w) => w.bigint(Api.hrtimeBigint, 0, 2, big, CONTROLLED), Api.hrtimeBigint, Tag.bigint, big],
    [
      (w) => w.number(Api.hrtime, Tag.hrtime | CONTROLLED, 0, 2, hr),
      Api.hrtime,
      Tag.hrtime,
      [Math.floor(hr / 1e9), hr % 1e9],
    ],
    [
      (w) => w.object(Api.dateCall, Tag.string | CONTROLLED, 0, 2, 'Mon Jan 01 2024'),
      Api.dateCall,
      Tag.string,
      'Mon Jan 01 2024',
    ],
    [(w) => w.number(Api.dateNow, Tag.f64 | CONTROLLED, 0, 2, later), Api.dateNow, Tag.f64, later],
  ];
}
const ALL = [...controlled(), ...EVENTS];
const SITE = {
  frames: [{ file: 'dep@1.0.0/index.js', line: 3, column: 9, fn: 'read', package: 'dep@1.0.0' }],
  skipped: 2,
};
const CONTEXT = { key: '0123456789abcdef', type: 'PROMISE' };

/** A trace of several small chunks (capacity 4), ending with exit code 7. */
function sample(events = ALL): Uint8Array {
  return write(4, (writer) => {
    writer.defineSite(1, SITE);
    writer.defineContext(2, CONTEXT);
    for (const [record] of events) if (record(writer)) writer.flush();
    writer.end(7);
  });
}

test('the format constant is what the writer writes first', () => {
  assert.equal(MAGIC_LINE, 'DETDRIFT-TRACE 4\n', 'changing the format version must be deliberate');
  const text = Buffer.from(write(4, (writer) => writer.end(0))).toString('latin1');
  assert.ok(text.startsWith(MAGIC_LINE));
  const headerLine = text.slice(MAGIC_LINE.length, text.indexOf('\n', MAGIC_LINE.length));
  assert.deepEqual(JSON.parse(headerLine), HEADER);
});

test('every value tag round-trips through TraceWriter and TraceReader', () => {
  const bytes = sample();
  assert.ok(chunksOf(bytes).chunks.length >= 4, 'several chunks');
  const trace = readBytes(bytes);
  assert.deepEqual(trace.header, HEADER);
  assert.deepEqual(
    trace.events.map(({ apiId, tag, value }) => [apiId, tag, value]),
    ALL.map(([, api, tag, value]) => [api, tag, value]),
  );
  trace.events.forEach((event, index) => {
    assert.equal(event.seq, index);
    assert.deepEqual(
      [event.api, event.form, event.family],
      [API_TABLE[event.apiId]!.api, API_TABLE[event.apiId]!.form, API_TABLE[event.apiId]!.family],
    );
  });
  const uncontrolled = trace.events.slice(ALL.length - EVENTS.length);
  assert.deepEqual(
    uncontrolled.slice(0, 2).map(({ site, ctx }) => [site, ctx]),
    [
      [1, 2],
      [0, 2],
    ],
  );
  const controls = ALL.map((_event, index) =>
    index < ALL.length - EVENTS.length || index === ALL.length - 1 ? Control.detdrift : Control.none,
  );
  assert.deepEqual(
    trace.events.map((event) => event.control),
    controls,
  );
  assert.deepEqual(trace.sites.get(1), SITE);
  assert.deepEqual(trace.contexts.get(2), CONTEXT);
  assert.deepEqual(trace.ending, {
    complete: true,
    truncated: false,
    truncatedAt: null,
    exitCode: 7,
    events: ALL.length,
    problems: [],
  });
});

test('scan tells every event events() gives, without an object per event, and eventsAt decodes one chunk again', () => {
  const bytes = sample();
  const file = join(dir, 'scanned.ddtrace');
  writeFileSync(file, bytes);
  const events = readTrace(file).events;
  const reader = TraceReader.open(file);
  try {
    const chunks: ChunkStart[] = [];
    const scanned: unknown[] = [];
    reader.scan({
      chunk: (start) => chunks.push(start),
      event: ({ apiId, tag, site, ctx, control, value }) => {
        scanned.push([apiId, tag, site, ctx, control, value]);
      },
    });
    assert.deepEqual(
      scanned,
      events.map(({ apiId, tag, site, ctx, control, value }) => [apiId, tag, site, ctx, control, value]),
    );
    assert.deepEqual(reader.ending, {
      complete: true,
      truncated: false,
      truncatedAt: null,
      exitCode: 7,
      events: ALL.length,
      problems: [],
    });
    assert.deepEqual(
      chunks.map(({ offset }) => offset),
      chunksOf(bytes).chunks,
    );
    // Each chunk decodes on its own, in any order, to what the whole pass gave.
    assert.deepEqual(
      [...chunks]
        .reverse()
        .map((start) => reader.eventsAt(start))
        .reverse()
        .flat(),
      events,
    );
    assert.throws(() => reader.eventsAt({ ...chunks[1]!, offset: chunks[1]!.offset + 1 }), {
      code: 'ERR_TRACE_CORRUPT',
    });
    assert.throws(() => reader.eventsAt({ ...chunks[0]!, offset: bytes.length }), { code: 'ERR_TRACE_CORRUPT' });

    // A sink that found what it looked for stops the reading: nothing after that event is told.
    const seen: number[] = [];
    let told = 0;
    reader.scan({
      chunk: () => {
        told++;
      },
      event: ({ apiId }) => seen.push(apiId) === 3,
    });
    assert.deepEqual(
      seen,
      events.slice(0, 3).map((event) => event.apiId),
    );
    assert.equal(told, 1, 'the chunks after it are not read');
  } finally {
    reader.close();
  }
});

/** quickEnding of `bytes`, written to a file of their own. */
function quickEnding(bytes: Uint8Array, name: string): unknown {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  const reader = TraceReader.open(file);
  try {
    return reader.quickEnding();
  } finally {
    reader.close();
  }
}

test('quickEnding tells what reading every event tells of a trace that ended well, and nothing of one cut, damaged or written twice', () => {
  // values control mode leaves out, in the last chunk too; then late events after the end record
  const bytes = sample();
  assert.deepEqual(quickEnding(bytes, 'quick.ddtrace'), readBytes(bytes).ending);
  const late = write(4, (writer) => {
    writer.number(Api.dateNow, Tag.f64, 0, 0, 1);
    writer.end(-2);
    if (writer.number(Api.dateNow, Tag.f64, 0, 0, 2)) writer.end(-2);
  });
  assert.deepEqual(quickEnding(late, 'quick-late.ddtrace'), readBytes(late).ending);
  const unended = write(4, (writer) => {
    writer.number(Api.dateNow, Tag.f64, 0, 0, 1);
    writer.flush();
  });
  assert.equal(quickEnding(unended, 'quick-unended.ddtrace'), null, 'no end record');
  const { chunks } = chunksOf(bytes);
  assert.equal(quickEnding(bytes.subarray(0, bytes.length - 1), 'quick-cut.ddtrace'), null, 'a torn last chunk');
  const damaged = bytes.slice();
  damaged[chunks[1]! + CHUNK_HEADER_BYTES]! ^= 0x40;
  assert.equal(quickEnding(damaged, 'quick-damaged.ddtrace'), null, 'a chunk that does not check out');
  const twice = Buffer.concat([bytes.subarray(0, chunks[2]!), bytes.subarray(chunks[1]!)]);
  assert.equal(quickEnding(twice, 'quick-twice.ddtrace'), null, 'a chunk written twice');
});

test('events after the end record (late exit listeners) land, and the trace stays complete', () => {
  const trace = readBytes(
    write(4, (writer) => {
      writer.number(Api.dateNow, Tag.f64, 0, 0, 1);
      writer.end(-2);
      if (writer.number(Api.dateNow, Tag.f64, 0, 0, 2)) writer.end(-2);
    }),
  );
  assert.deepEqual(
    trace.events.map((event) => event.value),
    [1, 2],
  );
  assert.deepEqual(trace.ending, {
    complete: true,
    truncated: false,
    truncatedAt: null,
    exitCode: -2,
    events: 2,
    problems: [],
  });
});

test('a trace cut at any byte reads as a truncated prefix, or as a coded header error', { timeout: 60_000 }, () => {
  const bytes = sample();
  const full = readBytes(bytes).events;
  const { start, chunks } = chunksOf(bytes);
  const file = join(dir, 'cut.ddtrace');
  writeFileSync(file, bytes);
  // Shortening one file in place: rewriting a file per offset costs milliseconds each on some disks.
  const fd = openSync(file, 'r+');
  after(() => closeSync(fd));
  for (let cut = bytes.length - 1; cut >= 0; cut--) {
    ftruncateSync(fd, cut);
    let trace: Trace;
    try {
      trace = readTrace(file);
    } catch (error) {
      assert.ok(error instanceof TraceError, `cut at ${cut}: ${error}`);
      assert.ok(cut < start, `cut at ${cut} inside the data must not throw: ${error.message}`);
      const codes = cut === 0 ? ['ERR_TRACE_EMPTY'] : ['ERR_TRACE_FOREIGN', 'ERR_TRACE_HEADER'];
      assert.ok(codes.includes(error.code), `cut at ${cut}: ${error.code}`);
      continue;
    }
    assert.ok(cut >= start, `cut at ${cut} inside the header must throw`);
    assert.deepEqual(trace.events, full.slice(0, trace.events.length), `cut at ${cut}: a prefix`);
    assert.equal(trace.ending.complete, false, `cut at ${cut}`);
    assert.equal(trace.ending.events, trace.events.length);
    const torn = chunks.findLast((chunk) => chunk <= cut)!;
    const atBoundary = cut === start || chunks.includes(cut);
    assert.equal(trace.ending.truncated, !atBoundary, `cut at ${cut}`);
    assert.equal(trace.ending.truncatedAt, atBoundary ? null : torn, `cut at ${cut}`);
    const problems = trace.ending.problems.map(({ code, from, to }) => [code, from, to]);
    assert.deepEqual(
      problems,
      atBoundary ? [] : [['ERR_TRACE_TRUNCATED', torn, cut]],
      `cut at ${cut}: a short last chunk is truncation, not corruption`,
    );
  }
});

/** A sample in which no value follows from the seed: the chunks after a damaged one decode on their own. */
const observed = () => sample(EVENTS);

/** The events of each chunk of a sound trace. */
function eventsByChunk(bytes: Uint8Array): TraceEvent[][] {
  const full = readBytes(bytes, 'sound.ddtrace').events;
  const reader = TraceReader.open(join(dir, 'sound.ddtrace'));
  const firstSeqs: number[] = [];
  reader.scan({ chunk: (start) => firstSeqs.push(start.seq), event: () => {} });
  reader.close();
  return firstSeqs.map((seq, index) => full.slice(seq, firstSeqs[index + 1] ?? full.length));
}

/** Events read from several chunks, numbered as one trace. */
const renumbered = (events: TraceEvent[]) => events.map((event, seq) => ({ ...event, seq }));

test('a flipped byte anywhere in a chunk skips that chunk to the next whole one, and says which bytes; a length past the end of the last is truncation', () => {
  const bytes = observed();
  const byChunk = eventsByChunk(bytes);
  const full = byChunk.flat();
  const eventsOf = (index: number) => byChunk[index]!;
  const { chunks } = chunksOf(bytes);
  const ends = [...chunks.slice(1), bytes.length];
  const file = join(dir, 'damaged.ddtrace');
  writeFileSync(file, bytes);
  // Each byte is flipped in place and restored after the read.
  const fd = openSync(file, 'r+');
  after(() => closeSync(fd));
  chunks.forEach((chunk, index) => {
    for (let at = chunk; at < ends[index]!; at++) {
      writeSync(fd, new Uint8Array([bytes[at]! ^ 0xff]), 0, 1, at);
      const trace = readTrace(file);
      writeSync(fd, bytes, at, 1, at);
      const name = `byte ${at} flipped`;
      const last = index === chunks.length - 1;
      const [first, ...rest] = trace.ending.problems;
      if (last && trace.ending.truncated) {
        // A length that points past the end of the file reads as a run killed mid-write: nothing follows to tell them apart.
        assert.ok(at > chunk && at < chunk + 5, name);
        assert.deepEqual(
          [first?.code, first?.from, trace.ending.complete],
          ['ERR_TRACE_TRUNCATED', chunk, false],
          name,
        );
      } else {
        assert.deepEqual([first?.code, first?.from, first?.to], ['ERR_TRACE_CORRUPT', chunk, ends[index]], name);
        assert.match(first!.message, new RegExp(`^bytes ${chunk} to ${ends[index]} skipped: expected a chunk`), name);
      }
      assert.deepEqual(
        trace.events,
        renumbered(byChunk.flatMap((events, other) => (other === index ? [] : events))),
        name,
      );
      // The end record, when read, counts the events the skipped chunk held.
      const read = full.length - eventsOf(index).length;
      const counted =
        last || read === full.length
          ? []
          : [
              [
                'ERR_TRACE_COUNT',
                `the end record at byte ${bytes.length - 3} counts ${full.length} events, ${read} were read before it`,
              ],
            ];
      assert.deepEqual(
        rest.map(({ code, message }) => [code, message]),
        counted,
        name,
      );
      assert.equal(trace.ending.complete, !last, name);
    }
  });
});

test('after skipped bytes, a value left out for the seed to give is not guessed: the rest is told as not read', () => {
  const bytes = Buffer.from(sample());
  const { chunks } = chunksOf(bytes);
  bytes[chunks[0]! + CHUNK_HEADER_BYTES] = bytes[chunks[0]! + CHUNK_HEADER_BYTES]! ^ 0xff;
  const trace = readBytes(bytes, 'out-of-step.ddtrace');
  // Chunk 1 opens with control mode's draws, written as "the seed's next": which draw that is went with chunk 0.
  assert.deepEqual(trace.events, []);
  assert.deepEqual(
    trace.ending.problems.map(({ code, from, to }) => [code, from, to]),
    [
      ['ERR_TRACE_CORRUPT', chunks[0], chunks[1]],
      ['ERR_TRACE_CORRUPT', chunks[1]! + CHUNK_HEADER_BYTES, bytes.length],
    ],
  );
  assert.match(
    trace.ending.problems[1]!.message,
    /not read: their values follow from the seed, drawn in step with the bytes skipped before them$/,
  );
  assert.equal(trace.ending.complete, false);
});

test("a chunk written twice is read twice, and the end record's count says so: ERR_TRACE_COUNT names the repeated chunk", () => {
  const bytes = observed();
  const byChunk = eventsByChunk(bytes);
  const { chunks } = chunksOf(bytes);
  const twice = Buffer.concat([
    bytes.subarray(0, chunks[2]),
    bytes.subarray(chunks[1], chunks[2]),
    bytes.subarray(chunks[2]),
  ]);
  const trace = readBytes(twice, 'twice.ddtrace');
  assert.deepEqual(trace.events, renumbered([...byChunk[0]!, ...byChunk[1]!, ...byChunk.slice(1).flat()]));
  const [counted, read] = [byChunk.flat().length, trace.events.length];
  assert.deepEqual(
    trace.ending.problems.map(({ code, from, message }) => [code, from, message]),
    [
      [
        'ERR_TRACE_COUNT',
        twice.length - 3,
        `the end record at byte ${twice.length - 3} counts ${counted} events, ${read} were read before it; the chunk at byte ${chunks[2]} repeats the one before it (written twice)`,
      ],
    ],
  );
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 7], 'the run still finished its exit');
});

test('a foreign file is ERR_TRACE_FOREIGN, and an older or newer format ERR_TRACE_VERSION, at their byte offset', () => {
  for (const content of [
    'hello\n',
    '\x89PNG\r\n\x1a\n',
    '{"format":"DETDRIFT-TRACE"}\n',
    'DETDRIFT-TRACE one\n{}\n',
    'DETDRIFT-TRACES 1\n{}\n',
  ]) {
    assert.throws(
      () => readBytes(Buffer.from(content, 'latin1')),
      { name: 'TraceError', code: 'ERR_TRACE_FOREIGN', offset: 0 },
      JSON.stringify(content),
    );
  }
  for (const [version, remedy] of [
    [1, 'record it again'],
    [2, 'record it again'],
    [5, 'newer detdrift'],
    [10, 'newer detdrift'],
  ] as const) {
    const content = `DETDRIFT-TRACE ${version}\n${JSON.stringify({ ...HEADER, version })}\n`;
    assert.throws(
      () => readBytes(Buffer.from(content)),
      (error: unknown) => {
        assert.ok(error instanceof TraceError);
        assert.equal(error.code, 'ERR_TRACE_VERSION');
        assert.equal(error.offset, 'DETDRIFT-TRACE '.length);
        assert.match(error.message, new RegExp(`expected trace format version 4, found ${version}: .*${remedy}`));
        return true;
      },
    );
  }
});

test('a version 3 trace is read: version 4 only added source map records', () => {
  const bytes = Buffer.from(write(4, (writer) => writer.end(0)));
  const older = Buffer.concat([Buffer.from('DETDRIFT-TRACE 3\n'), bytes.subarray(MAGIC_LINE.length)]);
  assert.equal(readBytes(older).ending.complete, true);
});

test('a source map record round-trips, by the file that frames name', () => {
  const source = { file: 'src/app.ts', path: '/home/ci/app/src/app.ts', map: 'data:application/json;base64,e30=' };
  const trace = readBytes(
    write(4, (writer) => {
      writer.defineSource(1, source);
      writer.end(0);
    }),
  );
  assert.deepEqual([...trace.sources], [['src/app.ts', source]]);
});

/** The bytes after the header: what the events cost. */
function dataBytes(bytes: Uint8Array): number {
  return bytes.length - chunksOf(bytes).start;
}

test('control mode values are left out of the trace and drawn again by the reader, in trace order', () => {
  const controller = new Controller(HEADER.seed!);
  const random = controller.stream('Math.random');
  const values = Array.from({ length: 3000 }, (_value, index) =>
    index % 10 === 9 ? Controller.wallMs(controller.tick()) : random.double(),
  );
  const bytes = write(1024, (writer) => {
    values.forEach((value, index) => {
      if (writer.number(index % 10 === 9 ? Api.dateNow : Api.mathRandom, Tag.f64 | CONTROLLED, 0, 0, value))
        writer.flush();
    });
    writer.end(0);
  });
  assert.deepEqual(
    readBytes(bytes).events.map((event) => event.value),
    values,
  );
  // Each switch of api costs a full event header (4 bytes) and a run record (2): here one byte an event.
  assert.ok(dataBytes(bytes) < values.length * 1.1, `${dataBytes(bytes)} bytes for ${values.length} events`);
});

test("a controlled value that is not the seed's next draw (the hook drew one unrecorded) is written out, and so are those after it", () => {
  const random = new Controller(HEADER.seed!).stream('Math.random');
  const first = random.double();
  random.double(); // drawn while recording was paused: the trace never sees it
  const rest = Array.from({ length: 20 }, () => random.double());
  const bytes = write(8, (writer) => {
    for (const value of [first, ...rest])
      if (writer.number(Api.mathRandom, Tag.f64 | CONTROLLED, 0, 0, value)) writer.flush();
    writer.end(0);
  });
  assert.deepEqual(
    readBytes(bytes).events.map((event) => event.value),
    [first, ...rest],
  );
  assert.ok(dataBytes(bytes) > rest.length * 8, 'the values after the missed draw are stored');
});

test('a controlled "count" stored as a double (not a varint) keeps writer and reader drawing in step', () => {
  const random = new Controller(HEADER.seed!).stream('Math.random');
  const draws = [random.double(), random.double()];
  const bytes = write(8, (writer) => {
    writer.number(Api.mathRandom, Tag.uint | CONTROLLED, 0, 0, 0.5); // written as f64, which the reader draws for
    for (const value of draws) writer.number(Api.mathRandom, Tag.f64 | CONTROLLED, 0, 0, value);
    writer.end(0);
  });
  assert.deepEqual(
    readBytes(bytes).events.map((event) => event.value),
    [0.5, ...draws],
  );
});

test('a loop of uncontrolled draws costs its values: a run record repeats api, tag and context', () => {
  const values = Array.from({ length: 1000 }, (_value, index) => index / 1000);
  const bytes = write(1000, (writer) => {
    for (const value of values) writer.number(Api.mathRandom, Tag.f64, 0, 3, value);
    writer.flush();
  });
  const events = readBytes(bytes).events;
  assert.deepEqual(
    events.map(({ value, ctx, site }) => [value, ctx, site]),
    values.map((value) => [value, 3, 0]),
  );
  assert.ok(dataBytes(bytes) <= values.length * 8 + 20, `${dataBytes(bytes)} bytes for ${values.length} doubles`);
});

test('a run of any length reads back, its count written in the bytes it needs, in front of its values', () => {
  // Each group: a clock read, then n draws: the first under a head of its own, the rest in runs of
  // at most MAX_RUN, each a run byte, a count of 1, 2 or 3 bytes, and its doubles. Short runs come
  // again after the long ones, which grew the writer's staging array.
  const lengths = [1, 2, 11, 65, 66, 128, 129, 16_384, 16_385, 65_536, 65_537, 70_000, 2, 11, 65, 66];
  const values: number[] = [];
  const bytes = write(1_000_000, (writer) => {
    for (const length of lengths) {
      writer.number(Api.dateNow, Tag.f64, 0, 1, length);
      for (let i = 0; i < length; i++) {
        values.push(i / length);
        writer.number(Api.mathRandom, Tag.f64, 0, 1, i / length);
      }
    }
    writer.flush();
  });
  const width = (count: number) => (count < 0x80 ? 1 : count < 0x4000 ? 2 : 3);
  let expected = 9; // the chunk's mark, length and CRC
  for (const length of lengths) {
    expected += 2 * (4 + 8); // the clock read's head and value, the first draw's
    for (let left = length - 1; left > 0; left -= MAX_RUN)
      expected += 1 + width(Math.min(left, MAX_RUN)) + 8 * Math.min(left, MAX_RUN);
  }
  assert.equal(dataBytes(bytes), expected);
  const events = readBytes(bytes).events;
  assert.deepEqual(
    events.filter((event) => event.apiId === Api.mathRandom).map((event) => event.value),
    values,
  );
  assert.deepEqual(
    events.filter((event) => event.apiId === Api.dateNow).map((event) => event.value),
    lengths,
  );
});

test('a definition made in the middle of a run, and an event or a definition that threw halfway, leave a chunk that reads back whole', () => {
  const bytes = write(100, (writer) => {
    for (let i = 0; i < 3; i++) writer.number(Api.mathRandom, Tag.f64, 0, 1, i);
    writer.defineContext(2, { key: 'feedface00000002', type: 'Timeout' });
    assert.throws(() => writer.defineContext(3, { key: 'feedface00000003', type: undefined as unknown as string }));
    for (let i = 3; i < 5; i++) writer.number(Api.mathRandom, Tag.f64, 0, 1, i);
    // A list whose name cannot be encoded throws halfway through its event: on an open run,
    const bad = [Symbol('not a name')] as unknown as string[];
    writer.object(Api.readdirSync, Tag.list, 0, 1, ['a']);
    writer.object(Api.readdirSync, Tag.list, 0, 1, ['b']);
    assert.throws(() => writer.object(Api.readdirSync, Tag.list, 0, 1, bad));
    writer.number(Api.mathRandom, Tag.f64, 0, 1, 5);
    // as the first event of a run, and under a head of its own.
    writer.object(Api.readdirSync, Tag.list, 0, 1, ['c']);
    assert.throws(() => writer.object(Api.readdirSync, Tag.list, 0, 1, bad));
    assert.throws(() => writer.object(Api.readdir, Tag.list, 0, 2, bad));
    writer.number(Api.mathRandom, Tag.f64, 0, 1, 6);
    writer.number(Api.mathRandom, Tag.f64, 0, 1, 7);
    writer.end(0);
  });
  const trace = readBytes(bytes);
  assert.deepEqual(
    trace.events.map((event) => [event.apiId, event.value]),
    [
      ...[0, 1, 2, 3, 4].map((value) => [Api.mathRandom, value]),
      [Api.readdirSync, ['a']],
      [Api.readdirSync, ['b']],
      [Api.mathRandom, 5],
      [Api.readdirSync, ['c']],
      [Api.mathRandom, 6],
      [Api.mathRandom, 7],
    ],
  );
  assert.equal(trace.ending.events, 11, 'the end record counts the events written, not those that threw');
  assert.deepEqual([...trace.contexts.keys()], [2], 'a definition that threw halfway is cut too');
});

test('a controlled event that throws after drawing turns derivation off: the values after it are written out and read back', () => {
  const controller = new Controller(HEADER.seed!);
  const random = controller.stream('Math.random');
  const first = Controller.wallMs(controller.tick());
  controller.tick(); // the hook's Date() ticked the clock; its event throws halfway, after the writer drew for it
  const values = [Controller.wallMs(controller.tick()), random.double(), Controller.wallMs(controller.tick())];
  const bytes = write(100, (writer) => {
    writer.number(Api.dateNow, Tag.f64 | CONTROLLED, 0, 0, first);
    assert.throws(() =>
      writer.object(Api.dateCall, Tag.string | CONTROLLED, 0, 0, Symbol('not a string') as unknown as string),
    );
    writer.number(Api.dateNow, Tag.f64 | CONTROLLED, 0, 0, values[0]!);
    writer.number(Api.mathRandom, Tag.f64 | CONTROLLED, 0, 0, values[1]!);
    writer.number(Api.dateNow, Tag.f64 | CONTROLLED, 0, 0, values[2]!);
    writer.end(0);
  });
  assert.deepEqual(
    readBytes(bytes).events.map((event) => event.value),
    [first, ...values],
  );
});

test('a controlled value the seed does not give is written out, even when it is NaN like the derivation\'s "no value"', () => {
  const bytes = write(100, (writer) => {
    writer.digest(Api.randomBytes, 0, 0, NaN, 7, CONTROLLED);
    writer.number(Api.setTimeout, Tag.uint | CONTROLLED, 0, 0, NaN);
    writer.end(0);
  });
  const events = readBytes(bytes).events;
  assert.deepEqual(
    events.map((event) => event.apiId),
    [Api.randomBytes, Api.setTimeout],
  );
  assert.ok(Number.isNaN(events[1]!.value), 'the NaN "count" reads back as NaN');
});

test('a run record without an event before it, an oversized run, or a derived mark on a value that does not follow from the seed is ERR_TRACE_CORRUPT', () => {
  const chunk = (payload: number[]) => {
    const body = new Uint8Array(payload);
    const head = new DataView(new ArrayBuffer(9));
    head.setUint8(0, 0xdd);
    head.setUint32(1, body.length, true);
    head.setUint32(5, crc32(body), true);
    return Buffer.concat([Buffer.from(MAGIC_LINE + JSON.stringify(HEADER) + '\n'), new Uint8Array(head.buffer), body]);
  };
  const derived = Tag.f64 | DERIVED;
  for (const [payload, expected] of [
    [[Rec.run, 1], /an event before a run record/],
    [[Api.setImmediate, Tag.none, 0, 0, Rec.run, 0x80, 0x80, 0x04], /a run of 1 to 65535 events, found 65536/],
    [[Api.mathRandom, derived, 0, 0], /marked derived, but Math.random/],
    [[Api.setTimeout, Tag.uint | DERIVED | CONTROLLED, 0, 0], /marked derived, but setTimeout/],
  ] as const) {
    assert.throws(() => readBytes(chunk([...payload])), {
      name: 'TraceError',
      code: 'ERR_TRACE_CORRUPT',
      message: expected,
    });
  }
});

test('CRC-32 is the IEEE one, whether zlib or the table computes it', () => {
  assert.equal(crc32(new TextEncoder().encode('123456789')), 0xcbf43926, 'the standard check value');
  // From 16 KiB on, zlib's native crc32 answers: the same value as the table, at every length and alignment.
  const bytes = new Uint8Array(70_001).map((_, i) => (i * 7919 + (i >> 8)) & 0xff);
  for (const [from, to] of [
    [0, 70_001],
    [3, 70_000],
    [1, 16_384 + 1],
    [0, 16_383],
  ] as const) {
    const view = bytes.subarray(from, to);
    assert.equal(crc32(view), crc32Table(view), `bytes ${from}..${to}`);
    assert.equal(crc32Table(view), zlibCrc32(view), `bytes ${from}..${to}: the table agrees with zlib itself`);
  }
});

test('doubles read back exactly, NaN payloads and -0 included', () => {
  const dir = tempDir();
  const file = join(dir, 'doubles.ddtrace');
  const fd = openSync(file, 'w');
  const writer = new TraceWriter({ write: (bytes) => void writeSync(fd, bytes) }, header(), 1024);
  const nan = new Float64Array(new Uint8Array([1, 0, 0, 0, 0, 0, 0xf8, 0x7f]).buffer)[0]!;
  // -0 and a NaN with a payload, in a short run and in a long one
  const special = (i: number) => (i === 7 || i === 2007 ? -0 : i === 8 || i === 2008 ? nan : undefined);
  const values = Array.from({ length: 3000 }, (_, i) => special(i) ?? (i % 500 === 0 ? Infinity : Math.sin(i)));
  writer.defineSite(1, { frames: [], skipped: 0 });
  values.forEach((value, i) => {
    // a run of draws, broken by a clock read every 10 events in the first half and every 100 after, and every 250 by a site
    if (i % (i < 1500 ? 10 : 100) === 5 && writer.number(Api.dateNow, Tag.f64, 0, 0, i)) writer.flush();
    if (writer.number(Api.mathRandom, Tag.f64, i % 250 === 0 ? 1 : 0, 0, value)) writer.flush();
  });
  writer.end(0);
  closeSync(fd);
  const draws = readTrace(file)
    .events.filter((event) => event.apiId === Api.mathRandom)
    .map((event) => event.value as number);
  const bits = (list: readonly number[]) => [...new BigUint64Array(new Float64Array(list).buffer)];
  assert.deepEqual(bits(draws), bits(values));
});

test("a context the hook defines by its 64-bit key is the same record as one defined by the key's hex string", () => {
  const keys: Array<readonly [number, number]> = [
    [0, 0],
    [0x01234567, 0x89abcdef],
    [0xffffffff, 0x0000000f],
    [0xfedcba98, 0x76543210],
  ];
  // the writer keeps the types it encoded: the same type again, one not in ASCII, more than it keeps
  const types = [
    'Timeout',
    'PROMISE',
    'Timeout',
    'Zeitgeber-\u00fc',
    ...Array.from({ length: 300 }, (_, i) => `Resource${i}`),
    'Timeout',
    'Resource299',
  ];
  const defs = types.map((type, i) => ({ high: keys[i % keys.length]![0], low: keys[i % keys.length]![1], type }));
  const byNumbers = write(16, (writer) => {
    defs.forEach(({ high, low, type }, i) => writer.defineContextKey(i + 1, high, low, type));
    writer.end(0);
  });
  const byStrings = write(16, (writer) => {
    defs.forEach(({ high, low, type }, i) => writer.defineContext(i + 1, { key: digestHex(high, low), type }));
    writer.end(0);
  });
  assert.deepEqual(byNumbers, byStrings);
  const contexts = [...readBytes(byNumbers, 'keys.ddtrace').contexts.values()];
  assert.deepEqual(
    contexts.slice(0, 4).map((def) => def.key),
    ['0000000000000000', '0123456789abcdef', 'ffffffff0000000f', 'fedcba9876543210'],
  );
  assert.deepEqual(
    contexts.map((def) => def.type),
    types,
  );
});

test('a site definition reads back as written, whatever its strings hold, and writing it runs no toJSON', () => {
  const frames = [
    { file: 'dep@1.0.0/odd "name"\\path\u2028.js', line: 1, column: 2, fn: '\u0000tab\there', package: 'dep@1.0.0' },
    { file: 'app.js', line: 40, column: 7, fn: null, package: null },
  ];
  // The header is written when the writer is made, before the program runs; sites come later.
  const chunks: Uint8Array[] = [];
  const writer = new TraceWriter({ write: (bytes) => void chunks.push(bytes.slice()) }, HEADER, 16);
  const seen: unknown[] = [];
  const proto = Object.prototype as { toJSON?: () => unknown };
  proto.toJSON = function toJSON(this: unknown) {
    seen.push(this);
    return {};
  };
  try {
    writer.defineSite(1, { frames, skipped: 3 });
    writer.number(Api.mathRandom, Tag.f64, 1, 0, 0.25);
    writer.end(0);
  } finally {
    delete proto.toJSON;
  }
  assert.deepEqual(seen, []);
  assert.deepEqual(readBytes(Buffer.concat(chunks), 'odd-site.ddtrace').sites.get(1), { frames, skipped: 3 });
});
