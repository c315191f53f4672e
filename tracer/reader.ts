import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from './crc32.js';
import { TraceError } from './errors.js';
import {
  CHUNK_HEADER_BYTES,
  CHUNK_MARK,
  FORMAT_NAME,
  FORMAT_VERSION,
  Control,
  CONTROL_MASK,
  CONTROL_SHIFT,
  DERIVED,
  MAX_RUN,
  OLDEST_READABLE_VERSION,
  Rec,
  Tag,
  TAG_MASK,
  unzigzag,
  type ApiRow,
  type ContextDef,
  type SiteDef,
  type SourceDef,
  type TraceHeader,
} from './format.js';
import { Derivation } from './derive.js';
import { digestHex } from './digest.js';
import { Utf8Decode } from './primordials.js';
import { headerProblem, toSiteDef } from './validate.js';

/** An output's value: the digest of the bytes, their length, and a head (the text's start, a file's path). */
export interface Chunk {
  readonly digest: string;
  readonly length: number;
  readonly head: string;
}

export type TraceValue = null | number | bigint | string | readonly string[] | readonly [number, number] | Chunk | Uint8Array;

export interface TraceEvent {
  readonly seq: number;
  readonly apiId: number;
  readonly api: string;
  readonly form: string;
  readonly family: string;
  readonly site: number;
  readonly ctx: number;
  readonly tag: number;
  /** who decided the value: Control.none (the real source), .detdrift or .program */
  readonly control: number;
  readonly value: TraceValue;
}

/** An event's fields as `scan` hands them over: one record, overwritten by the next event. */
export interface DecodedEvent {
  apiId: number;
  tag: number;
  site: number;
  ctx: number;
  control: number;
  value: TraceValue;
}

/** Where a chunk starts, as `scan` tells it: what decoding that chunk again on its own needs (eventsAt). */
export interface ChunkStart {
  /** the chunk's byte offset in the file */
  readonly offset: number;
  /** the number of its first event */
  readonly seq: number;
  /** control mode's generators at the chunk's start: its left-out values are drawn from here */
  readonly derivation: Derivation;
}

/** What `TraceReader.scan` tells as it reads: where each chunk starts, and each event. */
export interface EventSink {
  chunk(start: ChunkStart): void;
  /** the api's row is `reader.header.apis[event.apiId]`; the sites and contexts it names are defined by now */
  event(event: Readonly<DecodedEvent>): void;
}

/** How the trace ended, known once `events()` has been read to the end. */
export interface TraceEnding {
  /** an end record was the last thing written: the process finished its exit */
  complete: boolean;
  /** the file stops inside a chunk; `truncatedAt` is the offset of that chunk */
  truncated: boolean;
  truncatedAt: number | null;
  exitCode: number | null;
  events: number;
}

const HEADER_LIMIT = 1 << 20;
const BLOCK = 1 << 20;

/**
 * Streams a trace: the header is read and validated on open, events are decoded chunk by chunk,
 * so memory stays bounded by the largest chunk whatever the trace's length.
 */
export class TraceReader {
  readonly file: string;
  readonly header: TraceHeader;
  readonly sites = new Map<number, SiteDef>();
  readonly contexts = new Map<number, ContextDef>();
  /** source maps of generated files, by the file as frames name it (format.ts SourceDef) */
  readonly sources = new Map<string, SourceDef>();
  readonly ending: TraceEnding = { complete: false, truncated: false, truncatedAt: null, exitCode: null, events: 0 };
  private readonly fd: number;
  private readonly size: number;
  private readonly dataStart: number;
  private readonly apis: readonly ApiRow[];
  /** control mode's generators, run again over the controlled events in trace order; each pass from the start begins afresh */
  private derivation: Derivation;
  private readonly decoded: DecodedEvent = { apiId: 0, tag: 0, site: 0, ctx: 0, control: 0, value: null };

  static open(file: string): TraceReader {
    let fd: number;
    try {
      // Non-blocking: opening a FIFO by mistake must not wait for a writer forever.
      fd = openSync(file, OPEN_FLAGS);
    } catch (error) {
      throw new TraceError('ERR_TRACE_READ', file, 0, `cannot open the trace: ${(error as Error).message}`, { cause: error });
    }
    try {
      if (!fstatSync(fd).isFile()) throw new TraceError('ERR_TRACE_READ', file, 0, 'expected a trace file, found a directory or a device');
      return new TraceReader(file, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  private constructor(file: string, fd: number) {
    this.file = file;
    this.fd = fd;
    this.size = fstatSync(fd).size;
    const { header, end } = this.readHeader();
    this.header = header;
    this.apis = header.apis;
    this.dataStart = end;
    this.derivation = new Derivation(header);
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Decodes every event in order. Throws TraceError on corruption; a torn last chunk ends it quietly. */
  *events(): Generator<TraceEvent> {
    let seq = 0;
    this.derivation = new Derivation(this.header);
    for (const chunk of this.chunks(this.dataStart)) {
      for (const event of this.decodeChunk(chunk, seq)) {
        seq++;
        this.ending.complete = false;
        yield event;
      }
      this.ending.events = seq;
    }
  }

  /**
   * Decodes every event as `events()` does, but makes no object per event: `sink` is told where each
   * chunk starts and gets each event's fields in one reused record. For readers that keep columns
   * (diffing/load.ts), where ten million event objects would not fit in memory.
   */
  scan(sink: EventSink): void {
    let seq = 0;
    this.derivation = new Derivation(this.header);
    for (const chunk of this.chunks(this.dataStart)) {
      sink.chunk({ offset: chunk.base - CHUNK_HEADER_BYTES, seq, derivation: this.derivation.copy() });
      while (this.next(chunk)) {
        seq++;
        this.ending.complete = false;
        sink.event(this.decoded);
      }
      this.ending.events = seq;
    }
  }

  /** The events of the one chunk `scan` told of, as they were decoded then: a row read again. A pass in progress is left where it was. */
  eventsAt(start: ChunkStart): TraceEvent[] {
    if (start.offset < this.dataStart || start.offset >= this.size) this.fail(start.offset, `a chunk between bytes ${this.dataStart} and ${this.size}`);
    const passing = this.derivation;
    this.derivation = start.derivation.copy();
    try {
      for (const chunk of this.chunks(start.offset)) return [...this.decodeChunk(chunk, start.seq)];
      return this.fail(start.offset, 'a whole chunk');
    } finally {
      this.derivation = passing;
    }
  }

  /** Each whole, checksummed chunk from `offset` on, as a cursor over its payload. */
  private *chunks(offset: number): Generator<ChunkCursor> {
    const head = new Uint8Array(CHUNK_HEADER_BYTES);
    const headView = new DataView(head.buffer);
    let buffer = new Uint8Array(0);
    while (offset < this.size) {
      if (this.size - offset < CHUNK_HEADER_BYTES) return this.markTruncated(offset);
      readFully(this.fd, head, offset, this.file);
      if (head[0] !== CHUNK_MARK) this.fail(offset, `a chunk marker 0x${CHUNK_MARK.toString(16)}, found 0x${head[0]!.toString(16)}`);
      const length = headView.getUint32(1, true);
      const checksum = headView.getUint32(5, true);
      if (offset + CHUNK_HEADER_BYTES + length > this.size) return this.markTruncated(offset);
      // One buffer for every chunk: a chunk is decoded whole before the next is read.
      if (buffer.length < length) buffer = new Uint8Array(Math.max(length, buffer.length * 2));
      const payload = buffer.subarray(0, length);
      readFully(this.fd, payload, offset + CHUNK_HEADER_BYTES, this.file);
      if (crc32(payload) !== checksum) this.fail(offset, 'a chunk whose checksum matches its payload');
      yield new ChunkCursor(payload, offset + CHUNK_HEADER_BYTES, this);
      offset += CHUNK_HEADER_BYTES + length;
    }
  }

  private markTruncated(offset: number): void {
    this.ending.truncated = true;
    this.ending.truncatedAt = offset;
    this.ending.complete = false;
  }

  private *decodeChunk(chunk: ChunkCursor, firstSeq: number): Generator<TraceEvent> {
    const { decoded } = this;
    let seq = firstSeq;
    while (this.next(chunk)) {
      const row = this.apis[decoded.apiId]!;
      const { apiId, site, ctx, tag, control, value } = decoded;
      yield { seq: seq++, apiId, api: row.api, form: row.form, family: row.family, site, ctx, tag, control, value };
    }
  }

  /**
   * Decodes the chunk's next event into `decoded`: false at the chunk's end. Definitions and the end
   * record on the way are kept here; a run record repeats the chunk's last event's api, tag byte and
   * context, with no site, for each of its values.
   */
  private next(chunk: ChunkCursor): boolean {
    if (chunk.runLeft > 0) {
      chunk.runLeft--;
      this.decodeEvent(chunk, chunk.runApi, chunk.runTagByte, 0, chunk.runCtx);
      return true;
    }
    while (chunk.pos < chunk.length) {
      const at = chunk.at();
      const kind = chunk.u8();
      if (kind === Rec.run) {
        const count = chunk.varint();
        if (chunk.runTagByte < 0) this.fail(at, 'an event before a run record in its chunk');
        if (count < 1 || count > MAX_RUN) this.fail(at, `a run of 1 to ${MAX_RUN} events, found ${count}`);
        chunk.runLeft = count - 1;
        this.decodeEvent(chunk, chunk.runApi, chunk.runTagByte, 0, chunk.runCtx);
        return true;
      } else if (kind === Rec.site) {
        const id = chunk.varint();
        const def = toSiteDef(chunk.json());
        if (def === null) this.fail(at, 'a call site definition: { frames: [{ file, line, column, fn, package }], skipped }');
        this.sites.set(id, def);
      } else if (kind === Rec.source) {
        chunk.varint();
        const file = chunk.string();
        const path = chunk.string();
        this.sources.set(file, { file, path, map: chunk.string() });
      } else if (kind === Rec.context) {
        const id = chunk.varint();
        const key = chunk.string();
        this.contexts.set(id, { key, type: chunk.string() });
      } else if (kind === Rec.end) {
        chunk.varint();
        this.ending.exitCode = unzigzag(chunk.varint());
        this.ending.complete = true;
      } else if (kind > 0 && kind < this.apis.length) {
        const tagByte = chunk.u8();
        const site = chunk.varint();
        const ctx = chunk.varint();
        chunk.runApi = kind;
        chunk.runTagByte = tagByte;
        chunk.runCtx = ctx;
        this.decodeEvent(chunk, kind, tagByte, site, ctx);
        return true;
      } else {
        this.fail(at, `a record kind (an api id below ${this.apis.length}, or 0xf0, 0xf1, 0xf2, 0xf3, 0xfe), found 0x${kind.toString(16)}`);
      }
    }
    return false;
  }

  private decodeEvent(chunk: ChunkCursor, kind: number, tagByte: number, site: number, ctx: number): void {
    const decoded = this.decoded;
    decoded.apiId = kind;
    decoded.tag = tagByte & TAG_MASK;
    decoded.site = site;
    decoded.ctx = ctx;
    decoded.control = (tagByte >> CONTROL_SHIFT) & CONTROL_MASK;
    decoded.value = this.decodeValue(chunk, kind, tagByte, decoded.control);
  }

  /** A controlled event's value is drawn again whether it was written or left out, to keep the generators in step. */
  private decodeValue(cursor: Cursor, kind: number, tagByte: number, control: number): TraceValue {
    const tag = tagByte & TAG_MASK;
    const derived = control === Control.detdrift ? this.derivation.next(kind, tag) : NaN;
    if (!(tagByte & DERIVED)) return cursor.value(tag);
    if (Number.isNaN(derived)) this.fail(cursor.at(), `a value: the event is marked derived, but ${this.apis[kind]!.api} under tag ${tag} does not follow from the seed`);
    return presented(tag, derived);
  }

  fail(offset: number, expected: string): never {
    throw new TraceError('ERR_TRACE_CORRUPT', this.file, offset, `expected ${expected}`);
  }

  private readHeader(): { header: TraceHeader; end: number } {
    const length = Math.min(this.size, HEADER_LIMIT);
    const bytes = new Uint8Array(length);
    readFully(this.fd, bytes, 0, this.file);
    const magicEnd = bytes.indexOf(0x0a);
    const magic = Utf8Decode(bytes.subarray(0, magicEnd < 0 ? Math.min(length, 32) : magicEnd));
    const [name, version] = magic.split(' ');
    if (name !== FORMAT_NAME || version === undefined || !/^\d+$/.test(version)) {
      throw new TraceError('ERR_TRACE_FOREIGN', this.file, 0, `expected a detdrift trace starting "${FORMAT_NAME} ${FORMAT_VERSION}", found ${JSON.stringify(magic.slice(0, 32))}`);
    }
    if (Number(version) > FORMAT_VERSION || Number(version) < OLDEST_READABLE_VERSION) {
      const remedy = Number(version) > FORMAT_VERSION ? 'read it with a newer detdrift' : 'an older detdrift wrote it: record it again';
      throw new TraceError('ERR_TRACE_VERSION', this.file, FORMAT_NAME.length + 1, `expected trace format version ${FORMAT_VERSION}, found ${version}: ${remedy}`);
    }
    const headerEnd = bytes.indexOf(0x0a, magicEnd + 1);
    if (headerEnd < 0) {
      const reason = length === this.size ? 'the file ends inside the header' : `the header line is longer than ${HEADER_LIMIT} bytes`;
      throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected a one-line JSON header: ${reason}`);
    }
    let header: TraceHeader;
    try {
      header = JSON.parse(Utf8Decode(bytes.subarray(magicEnd + 1, headerEnd))) as TraceHeader;
    } catch (error) {
      throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected a JSON header: ${(error as Error).message}`, { cause: error });
    }
    const problem = headerProblem(header);
    if (problem !== null) throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected ${problem}`);
    return { header, end: headerEnd + 1 };
  }
}

class Cursor {
  pos = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    readonly base: number,
    private readonly reader: TraceReader,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get length(): number {
    return this.bytes.length;
  }

  /** The offset in the file of what comes next. */
  at(): number {
    return this.base + this.pos;
  }

  private need(count: number): void {
    if (this.pos + count > this.bytes.length) this.reader.fail(this.base + this.pos, `${count} more bytes inside the chunk`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++]!;
  }

  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const byte = this.u8();
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 0x80;
    }
    return this.reader.fail(this.base + this.pos, 'a varint of at most 8 bytes');
  }

  string(): string {
    const length = this.varint();
    this.need(length);
    const text = Utf8Decode(this.bytes.subarray(this.pos, this.pos + length));
    this.pos += length;
    return text;
  }

  json(): unknown {
    const at = this.pos;
    try {
      return JSON.parse(this.string());
    } catch {
      return this.reader.fail(this.base + at, 'a JSON definition');
    }
  }

  value(tag: number): TraceValue {
    switch (tag) {
      case Tag.none:
        return null;
      case Tag.f64:
        this.need(8);
        this.pos += 8;
        return this.view.getFloat64(this.pos - 8, true);
      case Tag.uint:
        return this.varint();
      case Tag.bigint:
        this.need(8);
        this.pos += 8;
        return this.view.getBigInt64(this.pos - 8, true);
      case Tag.hrtime:
        this.need(8);
        this.pos += 8;
        return presented(tag, this.view.getFloat64(this.pos - 8, true));
      case Tag.string:
        return this.string();
      case Tag.digest: {
        this.need(8);
        this.pos += 8;
        return digestHex(this.view.getUint32(this.pos - 8, true), this.view.getUint32(this.pos - 4, true));
      }
      case Tag.list: {
        const count = this.varint();
        const items: string[] = [];
        for (let i = 0; i < count; i++) items.push(this.string());
        return items;
      }
      case Tag.chunk: {
        this.need(8);
        this.pos += 8;
        const digest = digestHex(this.view.getUint32(this.pos - 8, true), this.view.getUint32(this.pos - 4, true));
        const length = this.varint();
        return { digest, length, head: this.string() };
      }
      case Tag.bytes: {
        const length = this.varint();
        this.need(length);
        this.pos += length;
        return this.bytes.slice(this.pos - length, this.pos);
      }
      default:
        return this.reader.fail(this.base + this.pos - 1, `a value tag from 0 to 9, found ${tag}`);
    }
  }
}

/** A derived or stored number as the event shows it: process.hrtime's nanoseconds as [seconds, nanoseconds]. */
function presented(tag: number, value: number): TraceValue {
  if (tag === Tag.bigint) return BigInt(value);
  if (tag === Tag.hrtime) return [Math.floor(value / 1e9), value % 1e9];
  return value;
}

function readFully(fd: number, into: Uint8Array, position: number, file: string): void {
  let done = 0;
  while (done < into.length) {
    let count: number;
    try {
      count = readSync(fd, into, done, Math.min(into.length - done, BLOCK), position + done);
    } catch (error) {
      throw new TraceError('ERR_TRACE_READ', file, position + done, `expected a readable file: ${(error as Error).message}`, { cause: error });
    }
    if (count === 0) break;
    done += count;
  }
}

const OPEN_FLAGS = process.platform === 'win32' ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK;


/** A cursor over one chunk, with the event a run record repeats: the chunk's last event, and how many of the run's values are left. */
class ChunkCursor extends Cursor {
  runApi = 0;
  /** -1 until the chunk's first event: a run record before it is corrupt */
  runTagByte = -1;
  runCtx = 0;
  runLeft = 0;
}
