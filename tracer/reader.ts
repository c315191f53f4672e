import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from './crc32.js';
import { TraceError } from './errors.js';
import {
  CHUNK_HEADER_BYTES,
  CHUNK_MARK,
  FORMAT_NAME,
  FORMAT_VERSION,
  CONTROL_SHIFT,
  Rec,
  Tag,
  TAG_MASK,
  unzigzag,
  type ApiRow,
  type ContextDef,
  type SiteDef,
  type TraceHeader,
} from './format.js';
import { digestHex } from './digest.js';
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

/** What `TraceReader.scan` tells as it reads: where each chunk starts, and each event. */
export interface EventSink {
  /** a chunk starts at byte `offset` of the file; its first event is number `seq` */
  chunk(offset: number, seq: number): void;
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
  readonly ending: TraceEnding = { complete: false, truncated: false, truncatedAt: null, exitCode: null, events: 0 };
  private readonly fd: number;
  private readonly size: number;
  private readonly dataStart: number;
  private readonly apis: readonly ApiRow[];
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
  }

  close(): void {
    closeSync(this.fd);
  }

  /** Decodes every event in order. Throws TraceError on corruption; a torn last chunk ends it quietly. */
  *events(): Generator<TraceEvent> {
    let seq = 0;
    for (const [payload, start] of this.chunks(this.dataStart)) {
      for (const event of this.decodeChunk(payload, start, seq)) {
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
    for (const [payload, start] of this.chunks(this.dataStart)) {
      sink.chunk(start - CHUNK_HEADER_BYTES, seq);
      const cursor = new Cursor(payload, start, this);
      while (cursor.pos < payload.length) {
        if (!this.record(cursor)) continue;
        seq++;
        this.ending.complete = false;
        sink.event(this.decoded);
      }
      this.ending.events = seq;
    }
  }

  /** The events of the one chunk at `offset` (as `scan` told it), numbered from `seq`: a row read again. */
  eventsAt(offset: number, seq: number): TraceEvent[] {
    if (offset < this.dataStart || offset >= this.size) this.fail(offset, `a chunk between bytes ${this.dataStart} and ${this.size}`);
    for (const [payload, start] of this.chunks(offset)) return [...this.decodeChunk(payload, start, seq)];
    return this.fail(offset, 'a whole chunk');
  }

  /** Each whole, checksummed chunk from `offset` on: its payload and the payload's offset. */
  private *chunks(offset: number): Generator<[Uint8Array, number]> {
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
      yield [payload, offset + CHUNK_HEADER_BYTES];
      offset += CHUNK_HEADER_BYTES + length;
    }
  }

  private markTruncated(offset: number): void {
    this.ending.truncated = true;
    this.ending.truncatedAt = offset;
    this.ending.complete = false;
  }

  private *decodeChunk(payload: Uint8Array, base: number, firstSeq: number): Generator<TraceEvent> {
    const cursor = new Cursor(payload, base, this);
    const { decoded } = this;
    let seq = firstSeq;
    while (cursor.pos < payload.length) {
      if (!this.record(cursor)) continue;
      const row = this.apis[decoded.apiId]!;
      const { apiId, site, ctx, tag, control, value } = decoded;
      yield { seq: seq++, apiId, api: row.api, form: row.form, family: row.family, site, ctx, tag, control, value };
    }
  }

  /** Decodes the record at the cursor: a definition or the end is kept here; an event goes into `decoded` (true). */
  private record(cursor: Cursor): boolean {
    const at = cursor.pos;
    const kind = cursor.u8();
    if (kind === Rec.site) {
      const id = cursor.varint();
      const def = toSiteDef(cursor.json());
      if (def === null) this.fail(cursor.base + at, 'a call site definition: { frames: [{ file, line, column, fn, package }], skipped }');
      this.sites.set(id, def);
    } else if (kind === Rec.context) {
      const id = cursor.varint();
      const key = cursor.string();
      this.contexts.set(id, { key, type: cursor.string() });
    } else if (kind === Rec.end) {
      cursor.varint();
      this.ending.exitCode = unzigzag(cursor.varint());
      this.ending.complete = true;
    } else if (kind > 0 && kind < this.apis.length) {
      const decoded = this.decoded;
      const tagByte = cursor.u8();
      decoded.apiId = kind;
      decoded.tag = tagByte & TAG_MASK;
      decoded.site = cursor.varint();
      decoded.ctx = cursor.varint();
      decoded.value = cursor.value(decoded.tag);
      decoded.control = tagByte >> CONTROL_SHIFT;
      return true;
    } else {
      this.fail(cursor.base + at, `a record kind (an api id below ${this.apis.length}, or 0xf1, 0xf2, 0xfe), found 0x${kind.toString(16)}`);
    }
    return false;
  }

  fail(offset: number, expected: string): never {
    throw new TraceError('ERR_TRACE_CORRUPT', this.file, offset, `expected ${expected}`);
  }

  private readHeader(): { header: TraceHeader; end: number } {
    const length = Math.min(this.size, HEADER_LIMIT);
    const bytes = new Uint8Array(length);
    readFully(this.fd, bytes, 0, this.file);
    const magicEnd = bytes.indexOf(0x0a);
    const magic = decoder.decode(bytes.subarray(0, magicEnd < 0 ? Math.min(length, 32) : magicEnd));
    const [name, version] = magic.split(' ');
    if (name !== FORMAT_NAME || version === undefined || !/^\d+$/.test(version)) {
      throw new TraceError('ERR_TRACE_FOREIGN', this.file, 0, `expected a detdrift trace starting "${FORMAT_NAME} ${FORMAT_VERSION}", found ${JSON.stringify(magic.slice(0, 32))}`);
    }
    if (Number(version) > FORMAT_VERSION) {
      throw new TraceError('ERR_TRACE_VERSION', this.file, FORMAT_NAME.length + 1, `expected trace format version ${FORMAT_VERSION} or older, found ${version}: read it with a newer detdrift`);
    }
    const headerEnd = bytes.indexOf(0x0a, magicEnd + 1);
    if (headerEnd < 0) {
      const reason = length === this.size ? 'the file ends inside the header' : `the header line is longer than ${HEADER_LIMIT} bytes`;
      throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected a one-line JSON header: ${reason}`);
    }
    let header: TraceHeader;
    try {
      header = JSON.parse(decoder.decode(bytes.subarray(magicEnd + 1, headerEnd))) as TraceHeader;
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
    const text = decoder.decode(this.bytes.subarray(this.pos, this.pos + length));
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
      case Tag.hrtime: {
        this.need(8);
        this.pos += 8;
        const nanoseconds = this.view.getFloat64(this.pos - 8, true);
        return [Math.floor(nanoseconds / 1e9), nanoseconds % 1e9];
      }
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

const decoder = new TextDecoder('utf-8', { fatal: false });
