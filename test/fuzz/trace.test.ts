/**
 * Bad traces (issue #9, item 3): random bytes, truncated files, valid traces mutated byte by byte,
 * chunk payloads mutated behind a recomputed checksum (so the decoder itself is reached), headers
 * with missing or mistyped fields, deep nesting, huge lines and unknown versions. Every case is
 * read by the real reader and, when it reads, goes through the whole comparison and report: no
 * crash, no hang, and every refusal is a TraceError that the CLI prints with exit status 2, naming
 * the file and the byte offset. A few cases also go through the real `show` and `diff` commands.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { crc32 } from '../../tracer/crc32.js';
import { reportError } from '../../cli/shared/errors.js';
import { eventJson, eventLine, describeEnding, headingLine } from '../../report/trace.js';
import { compare } from '../../diffing/compare.js';
import { buildReport } from '../../diffing/findings/build.js';
import { renderJson } from '../../report/json.js';
import { renderTerminal } from '../../report/terminal.js';
import { Api } from '../../tracer/apis.js';
import { TraceError } from '../../tracer/errors.js';
import {
  CHUNK_HEADER_BYTES,
  CONTROLLED,
  DERIVED,
  FORMAT_NAME,
  FORMAT_VERSION,
  Tag,
  type TraceHeader,
} from '../../tracer/format.js';
import { Controller } from '../../instrument/control.js';
import { TraceReader } from '../../tracer/reader.js';
import { TraceWriter } from '../../tracer/writer.js';
import { CLI, runPlain, tempDir } from '../helpers.js';
import { caseCount, caseName, seeded, type Random } from './seeded.js';
import { header } from '../synthetic.js';

const HEADER: TraceHeader = header({
  tool: { name: 'detdrift', version: '0.0.0-fuzz' },
  node: 'v20.19.0',
  seed: '7',
  root: { name: 'fuzz', version: '1.0.0' },
  holds: ['bytes'],
});

const dir = tempDir('detdrift-fuzz-trace-');
const root = tempDir('detdrift-fuzz-root-');

/** A valid trace of random events of every value tag, in small chunks, ended or not. */
function validTrace(random: Random, oddSite?: unknown): Uint8Array {
  const chunks: Uint8Array[] = [];
  const writer = new TraceWriter({ write: (bytes) => void chunks.push(bytes.slice()) }, HEADER, 2 + random.int(6));
  if (oddSite !== undefined) {
    writer.defineSiteJson(99, JSON.stringify(oddSite));
    writer.number(Api.mathRandom, Tag.f64, 99, 0, 0.5);
  }
  const frame = (i: number) => ({
    file: i % 2 ? `lib/${i}.js` : `dep@1.0.${i}/index.js`,
    line: 1 + i,
    column: 3,
    fn: i % 3 ? 'draw' : null,
    package: i % 2 ? null : `dep@1.0.${i}`,
  });
  const sites = 1 + random.int(4);
  for (let id = 1; id <= sites; id++)
    writer.defineSite(id, { frames: [frame(id), frame(id + 1)], skipped: random.int(3) });
  writer.defineContext(1, { key: '0123456789abcdef', type: 'PROMISE' });
  // Control mode's draws for the header's seed: left out of the trace unless one was skipped.
  const controller = new Controller(HEADER.seed!);
  const draws = controller.stream('Math.random');
  for (let i = 0, count = 4 + random.int(40); i < count; i++) {
    const site = random.int(sites + 1);
    const ctx = random.int(2);
    let due: boolean;
    switch (random.int(10)) {
      case 8:
        if (random() < 0.1) draws.double();
        for (let k = random.int(6); k >= 0; k--)
          if (writer.number(Api.mathRandom, Tag.f64 | CONTROLLED, k ? 0 : site, ctx, draws.double())) writer.flush();
        due = writer.number(Api.dateNow, Tag.f64 | CONTROLLED, 0, ctx, Controller.wallMs(controller.tick()));
        break;
      case 9: {
        // a loop: a run record of repeated events, with values or (Tag.none) without
        const [api, tag] = random() < 0.5 ? [Api.setImmediate, Tag.none] : [Api.performanceNow, Tag.f64];
        for (let k = random.int(6); k >= 0; k--) if (writer.number(api, tag, 0, ctx, random())) writer.flush();
        due = writer.number(api, tag, 0, ctx, random());
        break;
      }
      case 0:
        due = writer.number(Api.dateNow, Tag.f64, site, ctx, random() * 1e12);
        break;
      case 1:
        due = writer.number(Api.setTimeout, Tag.uint, site, ctx, random.int(1000));
        break;
      case 2:
        due = writer.bigint(Api.hrtimeBigint, site, ctx, BigInt(random.int(1e9)));
        break;
      case 3:
        due = writer.object(Api.hostname, Tag.string, site, ctx, 'host-' + random.int(9));
        break;
      case 4:
        due = writer.digest(Api.randomUUID, site, ctx, random.int(2 ** 32), random.int(2 ** 32));
        break;
      case 5:
        due = writer.object(Api.readdirSync, Tag.list, site, ctx, ['b', 'a', String(random.int(9))]);
        break;
      case 6:
        due = writer.bytes(Api.randomBytes, site, ctx, random.bytes(random.int(12)));
        break;
      default:
        due = writer.chunk(
          Api.stdout,
          site,
          ctx,
          random.int(2 ** 32),
          random.int(2 ** 32),
          random.int(99),
          `line ${i}\n`,
        );
    }
    if (due) writer.flush();
  }
  if (random() < 0.7) writer.end(random.int(3));
  else writer.flush();
  return Buffer.concat(chunks);
}

/** Where the header line ends and the chunks start. */
function dataStart(bytes: Uint8Array): number {
  return bytes.indexOf(0x0a, bytes.indexOf(0x0a) + 1) + 1;
}

const ALPHABET = Buffer.from(' \n\r\t{}[]":,0123456789-eE.nulltruefalse\\\u00dd\u00ff\u00f1\u00fe\u0080', 'latin1');

/** Random JSON-ish values for a header field: wrong types, nulls, deep nesting. */
function oddValue(random: Random): unknown {
  switch (random.int(9)) {
    case 0:
      return null;
    case 1:
      return random.int(2 ** 31) - 2 ** 30;
    case 2:
      return 'x'.repeat(random.int(40));
    case 3:
      return [];
    case 4:
      return {};
    case 5:
      return [1, 'a', null];
    case 6:
      return { name: 1, version: [] };
    case 7:
      return true;
    default:
      return DEEP; // spliced in as text: JSON.stringify itself cannot nest that deep
  }
}

const DEEP = '\u0000deep';
const DEEP_TEXT = '['.repeat(100_000) + ']'.repeat(100_000);

const VERSIONS = ['1', '3', '99999999999999999999', '-1', '1.0', '', '0', '01', ' 1', '1 1', 'one', '1e3', '\u0661'];

/** One bad file, made from a valid trace by one of the mutations; its name says which. */
function badTrace(random: Random): { kind: string; bytes: Uint8Array } {
  const valid = validTrace(random);
  const start = dataStart(valid);
  const mutation = random.int(11);
  switch (mutation) {
    case 0: {
      const magic = random() < 0.5 ? Buffer.from(`${FORMAT_NAME} ${FORMAT_VERSION}\n`) : Buffer.alloc(0);
      return { kind: 'random bytes', bytes: Buffer.concat([magic, random.bytes(random.int(600))]) };
    }
    case 1:
      return { kind: 'truncated', bytes: valid.subarray(0, random.int(valid.length + 1)) };
    case 2:
    case 3: {
      // byte-level: flips, inserts, deletes and repeats anywhere, header included
      const bytes = Array.from(valid);
      for (let k = 1 + random.int(4); k > 0; k--) {
        const at = random.int(bytes.length + 1);
        const span = 1 + random.int(8);
        const op = random.int(4);
        if (op === 0) bytes[at] = random.int(256);
        else if (op === 1)
          bytes.splice(at, 0, ...Array.from({ length: span }, () => random.pick(Array.from(ALPHABET))));
        else if (op === 2) bytes.splice(at, span);
        else bytes.splice(at, 0, ...bytes.slice(at, at + span));
      }
      return { kind: 'bytes mutated', bytes: Uint8Array.from(bytes.filter((byte) => byte !== undefined)) };
    }
    case 4:
    case 5:
    case 6:
      return { kind: 'payload mutated behind its checksum', bytes: mutatePayload(valid, start, random) };
    case 7: {
      const header = { ...HEADER } as Record<string, unknown>;
      const key = random.pick([...Object.keys(HEADER), 'extra']);
      if (random() < 0.3) delete header[key];
      else header[key] = oddValue(random);
      if (key === 'apis' && random() < 0.5)
        header.apis = [...HEADER.apis, ...HEADER.apis, ...HEADER.apis, ...HEADER.apis, ...HEADER.apis];
      const json = JSON.stringify(header).replace(JSON.stringify(DEEP), DEEP_TEXT);
      const line = Buffer.from(`${FORMAT_NAME} ${FORMAT_VERSION}\n${json}\n`);
      return { kind: `header field ${key}`, bytes: Buffer.concat([line, valid.subarray(start)]) };
    }
    case 8: {
      const version = random.pick(VERSIONS);
      const rest = valid.subarray(valid.indexOf(0x0a));
      return {
        kind: `version ${JSON.stringify(version)}`,
        bytes: Buffer.concat([Buffer.from(`${FORMAT_NAME} ${version}`), rest]),
      };
    }
    case 9: {
      const frame = { file: 'a.js', line: 1, column: 1, fn: null, package: null };
      const shapes = [
        null,
        [],
        5,
        { frames: 5, skipped: 0 },
        { frames: [{ ...frame, line: '1' }], skipped: 0 },
        { frames: [{ ...frame, file: null }], skipped: 0 },
        { frames: [frame], skipped: 'x' },
        { frames: [{ ...frame, fn: 3 }], skipped: 0 },
        { frames: [{ ...frame, package: {} }], skipped: 0 },
        { frames: [null], skipped: 0 },
      ];
      const index = random.int(shapes.length);
      return { kind: `site definition mistyped ${index}`, bytes: validTrace(random, shapes[index]) };
    }
    default: {
      const shapes = [
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\n${'['.repeat(200_000)}${']'.repeat(200_000)}\n`,
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\n{"pad":"${'x'.repeat((1 << 20) + 10)}"}\n`,
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\n${'x'.repeat((1 << 20) + 10)}`,
        () => `${'x'.repeat(1 << 16)}`,
        () => `\ufeff${FORMAT_NAME} ${FORMAT_VERSION}\n${JSON.stringify(HEADER)}\n`,
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\r\n${JSON.stringify(HEADER)}\r\n`,
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\n${JSON.stringify(HEADER)}`,
        () => `${FORMAT_NAME} ${FORMAT_VERSION}\n${JSON.stringify([HEADER])}\n`,
      ];
      const index = random.int(shapes.length);
      return { kind: `huge or odd header ${index}`, bytes: Buffer.from(shapes[index]!()) };
    }
  }
}

/** Mutates one chunk's payload, then rewrites its length and checksum so the decoder reads it. */
function mutatePayload(valid: Uint8Array, start: number, random: Random): Uint8Array {
  const view = new DataView(valid.buffer, valid.byteOffset, valid.byteLength);
  const chunks: Array<[number, number]> = [];
  for (
    let at = start;
    at + CHUNK_HEADER_BYTES <= valid.length;
    at += CHUNK_HEADER_BYTES + view.getUint32(at + 1, true)
  ) {
    chunks.push([at, view.getUint32(at + 1, true)]);
  }
  if (chunks.length === 0) return valid;
  const [at, length] = random.pick(chunks);
  const payload = Array.from(valid.subarray(at + CHUNK_HEADER_BYTES, at + CHUNK_HEADER_BYTES + length));
  for (let k = 1 + random.int(3); k > 0; k--) {
    const i = random.int(payload.length + 1);
    const op = random.int(5);
    if (op === 0) payload[i] = random.int(256);
    else if (op === 1) payload.splice(i, 0, ...random.bytes(1 + random.int(6)));
    else if (op === 2) payload.splice(i, 1 + random.int(6));
    else if (op === 3)
      payload.splice(i, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f); // a varint near 2^56
    else payload[i] = random.pick([0x00, 0xf0, 0xf1, 0xf2, 0xfe, 0xef, 0x0f, 0x1a, Tag.f64 | CONTROLLED | DERIVED]);
  }
  const bytes = Uint8Array.from(payload.filter((byte) => byte !== undefined));
  const head = new Uint8Array(CHUNK_HEADER_BYTES);
  const headView = new DataView(head.buffer);
  head[0] = 0xdd;
  headView.setUint32(1, bytes.length, true);
  headView.setUint32(5, crc32(bytes), true);
  return Buffer.concat([valid.subarray(0, at), head, bytes, valid.subarray(at + CHUNK_HEADER_BYTES + length)]);
}

/** Everything the CLI does with a trace: show it, compare it, report on it. Throws what they throw. */
function consume(file: string, other: string): 'read' | 'refused' {
  const reader = TraceReader.open(file);
  try {
    headingLine(file, reader.header);
    for (const event of reader.events()) {
      eventLine(event, reader.sites);
      JSON.stringify(eventJson(event, reader.sites));
    }
    describeEnding(reader.ending);
  } finally {
    reader.close();
  }
  for (const [a, b] of [
    [file, other],
    [other, file],
  ] as const) {
    const report = buildReport(compare(a, b), { root });
    renderJson(report);
    renderTerminal(report, { color: false });
  }
  return 'read';
}

/** A refusal the CLI reports well: a TraceError, exit status 2, the file and the byte offset named. */
function assertCoded(error: unknown, file: string, name: string): void {
  if (!(error instanceof TraceError)) {
    assert.fail(`${name}: not a coded refusal: ${error instanceof Error ? error.stack : String(error)}`);
  }
  const { status, text } = reportError(error);
  assert.equal(status, 2, name);
  assert.ok(text.includes(file) && text.includes(`byte ${error.offset}`), `${name}: ${text}`);
}

const CASES = caseCount(400);

test(`${CASES} bad traces: each reads whole through show, compare and report, or is a coded refusal naming file and byte`, {
  timeout: 600_000,
}, () => {
  const random = seeded(3);
  const other = join(dir, 'other.ddtrace');
  writeFileSync(other, validTrace(random));
  const seen = new Map<string, { read: number; refused: number }>();
  for (let i = 0; i < CASES; i++) {
    const { kind, bytes } = badTrace(random);
    const file = join(dir, `case-${i % 8}.ddtrace`);
    writeFileSync(file, bytes);
    const name = `${caseName('trace', i)}: ${kind}`;
    const tally = seen.get(kind.replace(/ .*/, '')) ?? { read: 0, refused: 0 };
    try {
      consume(file, other);
      tally.read++;
    } catch (error) {
      assertCoded(error, file, name);
      tally.refused++;
    }
    seen.set(kind.replace(/ .*/, ''), tally);
  }
  const totals = [...seen.values()].reduce((sum, { read, refused }) => ({
    read: sum.read + read,
    refused: sum.refused + refused,
  }));
  assert.ok(totals.read > 0 && totals.refused > 0, `both outcomes occur: ${JSON.stringify(Object.fromEntries(seen))}`);
});

test('every header field is checked: a wrong type in any of them is ERR_TRACE_HEADER at the header line', () => {
  const valid = validTrace(seeded(4));
  const start = dataStart(valid);
  const magic = `${FORMAT_NAME} ${FORMAT_VERSION}\n`;
  for (const key of Object.keys(HEADER).filter((name) => name !== 'format')) {
    for (const wrong of [undefined, 42, { nested: [[[]]] }]) {
      if (key === 'version' && wrong === 42) continue; // a number is what it must be
      if ((key === 'seed' || key === 'lockfile') && wrong === undefined) continue; // checked as null-or: undefined is refused below
      const header = { ...HEADER, [key]: wrong };
      const file = join(dir, 'header.ddtrace');
      writeFileSync(file, Buffer.concat([Buffer.from(magic + JSON.stringify(header) + '\n'), valid.subarray(start)]));
      assert.throws(
        () => TraceReader.open(file),
        (error: unknown) => {
          assert.ok(
            error instanceof TraceError && error.code === 'ERR_TRACE_HEADER',
            `${key} = ${JSON.stringify(wrong)}: ${String(error)}`,
          );
          assert.equal(error.offset, magic.length);
          assert.ok(error.message.includes(`"${key}"`), error.message);
          return true;
        },
      );
    }
  }
});

test('a directory or a FIFO given as a trace is ERR_TRACE_READ, and opening a FIFO does not wait for a writer', {
  skip: process.platform === 'win32',
}, () => {
  const fifo = join(dir, 'fifo.ddtrace');
  const made = runPlain(['-e', `require('child_process').execFileSync('mkfifo', [${JSON.stringify(fifo)}])`], {
    cwd: dir,
  });
  for (const path of [dir, ...(made.code === 0 ? [fifo] : [])]) {
    assert.throws(
      () => TraceReader.open(path),
      (error: unknown) =>
        error instanceof TraceError && error.code === 'ERR_TRACE_READ' && error.message.includes(path),
    );
  }
});

test('the real CLI on bad traces: show and diff exit 0, 1 or 2, never 3, and a refusal names the file and byte', {
  timeout: 300_000,
}, () => {
  const random = seeded(5);
  const good = join(dir, 'good.ddtrace');
  writeFileSync(good, validTrace(random));
  for (let i = 0, count = caseCount(6, 60); i < count; i++) {
    const { kind, bytes } = badTrace(random);
    const file = join(dir, `cli-${i}.ddtrace`);
    writeFileSync(file, bytes);
    for (const args of [
      ['show', file],
      ['diff', file, good, '--no-confirm', '--json'],
    ]) {
      const run = runPlain([CLI, ...args], { cwd: root });
      const name = `${caseName('cli', i)}: ${kind}: detdrift ${args[0]}`;
      assert.ok(run.code === 0 || run.code === 1 || run.code === 2, `${name}: exit ${run.code}: ${run.stderr}`);
      if (run.code === 2)
        assert.match(
          run.stderr,
          new RegExp(`ERR_TRACE_[A-Z]+: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: byte \\d+: expected`),
          name,
        );
    }
  }
});
