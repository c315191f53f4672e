import { closeSync, fstatSync } from 'node:fs';
import { TraceError } from './errors.js';
import { ChunkFile, readFully, type Damage } from './framing.js';
import {
  CHUNK_HEADER_BYTES,
  FORMAT_NAME,
  FORMAT_VERSION,
  Control,
  CONTROL_MASK,
  CONTROL_SHIFT,
  DERIVED,
  MAX_RUN,
  OLDEST_READABLE_VERSION,
  Rec,
  TAG_MASK,
  unzigzag,
  type ApiRow,
  type ContextDef,
  type SiteDef,
  type SourceDef,
  type TraceHeader,
} from './format.js';
import { Derivation } from './derive.js';
import { ChunkCursor, type Cursor, presented } from './cursor.js';
import { isDigits, Utf8Decode } from './primordials.js';
import { headerProblem, toSiteDef } from './validate.js';
import { describeOpenError, kindOf, openNoFollow } from './regular-file.js';

/** An output's value: the digest of the bytes, their length, and a head (the text's start, a file's path). */
export interface Chunk {
  readonly digest: string;
  readonly length: number;
  readonly head: string;
}

export type TraceValue =
  | null
  | number
  | bigint
  | string
  | readonly string[]
  | readonly [number, number]
  | Chunk
  | Uint8Array;

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
  /**
   * control mode's generators at the chunk's start: its left-out values are drawn from here; null once
   * skipped bytes put them out of step
   */
  readonly derivation: Derivation | null;
}

/** What `TraceReader.scan` tells as it reads: where each chunk starts, and each event. */
export interface EventSink {
  chunk(start: ChunkStart): void;
  /**
   * The api's row is `reader.header.apis[event.apiId]`; the sites and contexts it names are defined
   * by now. `true` stops the reading there (a search that found what it looked for): the ending
   * then tells nothing of the rest.
   */
  // biome-ignore lint/suspicious/noConfusingVoidType: a sink that returns nothing (most do) reads on
  event(event: Readonly<DecodedEvent>): boolean | void;
}

/**
 * Something wrong with a trace that the reader read past: what it says is missing, or doubtful.
 * ERR_TRACE_TRUNCATED: the file stops inside its last chunk (the run stopped mid-write), which is
 * dropped; ERR_TRACE_CORRUPT: bytes skipped, from a chunk that does not check out (its marker,
 * length or checksum) to the next chunk that does; ERR_TRACE_COUNT: the end record counts other
 * events than were read (a chunk written twice, or lost).
 */
export interface TraceProblem {
  readonly code: 'ERR_TRACE_TRUNCATED' | 'ERR_TRACE_CORRUPT' | 'ERR_TRACE_COUNT';
  /** the bytes it is about: [from, to) */
  readonly from: number;
  readonly to: number;
  readonly message: string;
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
  /** damage read past, in file order */
  problems: TraceProblem[];
}

/** Why a trace file is empty, as every command says it (ERR_TRACE_EMPTY). */
export const EMPTY_TRACE = 'the run stopped before its first write';

/** The reader's refusal of an empty file, which a directory of traces reads as a trace that recorded nothing. */
export function isEmptyTrace(error: unknown): boolean {
  return error instanceof TraceError && error.code === 'ERR_TRACE_EMPTY';
}

const HEADER_LIMIT = 1 << 20;

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
  readonly ending: TraceEnding = {
    complete: false,
    truncated: false,
    truncatedAt: null,
    exitCode: null,
    events: 0,
    problems: [],
  };
  private readonly fd: number;
  /** the file's size in bytes, as it was opened */
  readonly size: number;
  private readonly dataStart: number;
  private readonly apis: readonly ApiRow[];
  private readonly framing: ChunkFile;
  private pass: Pass;
  private readonly decoded: DecodedEvent = { apiId: 0, tag: 0, site: 0, ctx: 0, control: 0, value: null };

  static open(file: string): TraceReader {
    let fd: number;
    try {
      // A trace can come from another job: not through a link, and never waiting on a FIFO.
      fd = openNoFollow(file);
    } catch (error) {
      throw new TraceError('ERR_TRACE_READ', file, 0, `cannot open the trace: ${describeOpenError(error)}`, {
        cause: error,
      });
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile())
        throw new TraceError('ERR_TRACE_READ', file, 0, `expected a trace file, found ${kindOf(stats)}`);
      if (stats.size === 0)
        throw new TraceError(
          'ERR_TRACE_EMPTY',
          file,
          0,
          `expected a trace header, found an empty file (${EMPTY_TRACE})`,
        );
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
    this.framing = new ChunkFile(fd, this.size, file);
    this.pass = this.fromStart();
  }

  close(): void {
    closeSync(this.fd);
  }

  /**
   * Decodes every event in order. A torn last chunk ends it quietly; damaged bytes are skipped to the
   * next chunk that checks out, and told in `ending.problems`. Throws TraceError on a chunk that
   * checks out but does not decode.
   */
  *events(): Generator<TraceEvent> {
    let seq = 0;
    this.pass = this.fromStart();
    for (const chunk of this.chunks(this.dataStart)) {
      for (const event of this.decodeChunk(chunk, seq)) {
        seq++;
        this.ending.complete = false;
        yield event;
      }
      this.ending.events = seq;
    }
    this.checkCount();
  }

  /**
   * Decodes every event as `events()` does, but makes no object per event: `sink` is told where each
   * chunk starts and gets each event's fields in one reused record. For readers that keep columns
   * (diffing/load.ts), where ten million event objects would not fit in memory.
   */
  scan(sink: EventSink): void {
    let seq = 0;
    this.pass = this.fromStart();
    for (const chunk of this.chunks(this.dataStart)) {
      sink.chunk({ offset: chunk.base - CHUNK_HEADER_BYTES, seq, derivation: this.pass.derivation?.copy() ?? null });
      while (this.next(chunk)) {
        seq++;
        this.ending.complete = false;
        if (sink.event(this.decoded) === true) return;
      }
      this.ending.events = seq;
    }
    this.checkCount();
  }

  /**
   * The ending as a reading of every event would tell it, for a summary of a long trace (record's),
   * from the chunks' checksums and the last chunk alone: every chunk checks out, none repeats the
   * one before it, and the last record is an end record, whose count and exit code are then the
   * trace's. Null when that cannot tell (damage, a torn end, a chunk written twice, a run that
   * ended without its record): `events()` or `scan` then reads it all and says what is wrong. The
   * end record's count is taken on trust: a lost chunk, which only `scan` would find, goes untold.
   */
  quickEnding(): TraceEnding | null {
    this.pass = this.fromStart();
    let last: ChunkCursor | null = null;
    // chunks() reads every chunk into one buffer: the last one's view is whole once the loop ends
    for (const chunk of this.chunks(this.dataStart)) last = chunk;
    if (last === null || this.ending.problems.length > 0 || this.pass.repeated !== null) return null;
    // The records before the end record, read for their lengths: a value left out for the seed to
    // give has none, so no generator is run.
    this.pass = new Pass(null, 0, this.ending);
    this.pass.lengthsOnly = true;
    this.ending.complete = false;
    while (this.next(last)) this.ending.complete = false;
    const end = this.pass.end;
    if (!this.ending.complete || end === null) return null;
    this.ending.events = end.count;
    return this.ending;
  }

  /**
   * The events of the one chunk `scan` told of, as they were decoded then: a row read again. A pass in
   * progress is left where it was.
   */
  eventsAt(start: ChunkStart): TraceEvent[] {
    if (start.offset < this.dataStart || start.offset >= this.size)
      this.fail(start.offset, `a chunk between bytes ${this.dataStart} and ${this.size}`);
    const passing = this.pass;
    this.pass = new Pass(start.derivation?.copy() ?? null, start.seq, null);
    try {
      const chunk = this.framing.read(start.offset);
      if (!('payload' in chunk)) return this.fail(start.offset, chunk.expected);
      return [...this.decodeChunk(new ChunkCursor(chunk.payload, start.offset + CHUNK_HEADER_BYTES, this), start.seq)];
    } finally {
      this.pass = passing;
    }
  }

  private fromStart(): Pass {
    this.ending.problems.length = 0;
    return new Pass(new Derivation(this.header), 0, this.ending);
  }

  /** Each whole, checksummed chunk from `offset` on, as a cursor over its payload; damaged bytes are skipped. */
  private *chunks(offset: number): Generator<ChunkCursor> {
    let before = '';
    while (offset < this.size && !this.pass.stopped) {
      const chunk = this.framing.read(offset);
      if (!('payload' in chunk)) {
        offset = this.skip(offset, chunk);
        before = '';
        continue;
      }
      // Two chunks alike (length and checksum) are most likely one written twice: the count will tell.
      const alike = `${chunk.payload.length}:${chunk.checksum}`;
      if (alike === before) this.pass.repeated ??= offset;
      before = alike;
      yield new ChunkCursor(chunk.payload, offset + CHUNK_HEADER_BYTES, this);
      offset = chunk.next;
    }
  }

  /**
   * Past a chunk that does not check out: to the next one that does. With none after it, a chunk
   * that began well and that the file stops inside is a run killed mid-write (truncated); anything
   * else is damage, up to the end of the file. Returns where reading goes on.
   */
  private skip(offset: number, damage: Damage): number {
    const next = this.framing.resync(offset, damage);
    if (next === null && damage.torn) {
      this.ending.truncated = true;
      this.ending.truncatedAt = offset;
      this.ending.complete = false;
      const message = `truncated at byte ${offset} (the run stopped mid-write)`;
      this.ending.problems.push({ code: 'ERR_TRACE_TRUNCATED', from: offset, to: this.size, message });
      return this.size;
    }
    const to = next ?? this.size;
    const message = `bytes ${offset} to ${to} skipped: expected ${damage.expected}`;
    this.ending.problems.push({ code: 'ERR_TRACE_CORRUPT', from: offset, to, message });
    // What the skipped bytes drew from control mode's generators is unknown now.
    this.pass.derivation = null;
    return to;
  }

  /**
   * A value left out because it followed from the seed, after skipped bytes put the generators out
   * of step: the rest of the trace cannot be decoded, and is told as not read.
   */
  private outOfStep(chunk: ChunkCursor, at: number): false {
    this.pass.stopped = true;
    chunk.pos = chunk.length;
    chunk.runLeft = 0;
    this.pass.ending?.problems.push({
      code: 'ERR_TRACE_CORRUPT',
      from: at,
      to: this.size,
      message: `bytes ${at} to ${this.size} not read: their values follow from the seed, drawn in step with the bytes skipped before them`,
    });
    return false;
  }

  /** The last end record's count against the events read before it. */
  private checkCount(): void {
    const end = this.pass.end;
    if (end === null || end.count === end.read) return;
    const { repeated } = this.pass;
    const repeat =
      end.read > end.count && repeated !== null
        ? `; the chunk at byte ${repeated} repeats the one before it (written twice)`
        : '';
    const message = `the end record at byte ${end.at} counts ${end.count} events, ${end.read} were read before it${repeat}`;
    this.ending.problems.push({ code: 'ERR_TRACE_COUNT', from: end.at, to: end.at, message });
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
        if (chunk.runTagByte & DERIVED && this.pass.derivation === null && !this.pass.lengthsOnly)
          return this.outOfStep(chunk, at);
        chunk.runLeft = count - 1;
        this.decodeEvent(chunk, chunk.runApi, chunk.runTagByte, 0, chunk.runCtx);
        return true;
      } else if (kind === Rec.site) {
        const id = chunk.varint();
        const def = toSiteDef(chunk.json());
        if (def === null)
          this.fail(at, 'a call site definition: { frames: [{ file, line, column, fn, package }], skipped }');
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
        const count = chunk.varint();
        const exitCode = unzigzag(chunk.varint());
        const { pass } = this;
        pass.end = { at, count, read: pass.read };
        if (pass.ending) {
          pass.ending.exitCode = exitCode;
          pass.ending.complete = true;
        }
      } else if (kind > 0 && kind < this.apis.length) {
        const tagByte = chunk.u8();
        const site = chunk.varint();
        const ctx = chunk.varint();
        if (tagByte & DERIVED && this.pass.derivation === null && !this.pass.lengthsOnly)
          return this.outOfStep(chunk, at);
        chunk.runApi = kind;
        chunk.runTagByte = tagByte;
        chunk.runCtx = ctx;
        this.decodeEvent(chunk, kind, tagByte, site, ctx);
        return true;
      } else {
        this.fail(
          at,
          `a record kind (an api id below ${this.apis.length}, or 0xf0, 0xf1, 0xf2, 0xf3, 0xfe), found 0x${kind.toString(16)}`,
        );
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
    this.pass.read++;
  }

  /** A controlled event's value is drawn again whether it was written or left out, to keep the generators in step. */
  private decodeValue(cursor: Cursor, kind: number, tagByte: number, control: number): TraceValue {
    const tag = tagByte & TAG_MASK;
    if (this.pass.lengthsOnly) return tagByte & DERIVED ? null : cursor.value(tag);
    const derived =
      control === Control.detdrift && this.pass.derivation !== null ? this.pass.derivation.next(kind, tag) : NaN;
    if (!(tagByte & DERIVED)) return cursor.value(tag);
    if (Number.isNaN(derived))
      this.fail(
        cursor.at(),
        `a value: the event is marked derived, but ${this.apis[kind]!.api} under tag ${tag} does not follow from the seed`,
      );
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
    if (name !== FORMAT_NAME || version === undefined || !isDigits(version)) {
      throw new TraceError(
        'ERR_TRACE_FOREIGN',
        this.file,
        0,
        // An error never quotes the file: it may be any file a path names.
        `expected a detdrift trace starting "${FORMAT_NAME} ${FORMAT_VERSION}", found another kind of file`,
      );
    }
    if (Number(version) > FORMAT_VERSION || Number(version) < OLDEST_READABLE_VERSION) {
      const remedy =
        Number(version) > FORMAT_VERSION
          ? 'read it with a newer detdrift'
          : 'an older detdrift wrote it: record it again';
      throw new TraceError(
        'ERR_TRACE_VERSION',
        this.file,
        FORMAT_NAME.length + 1,
        `expected trace format version ${FORMAT_VERSION}, found ${version}: ${remedy}`,
      );
    }
    const headerEnd = bytes.indexOf(0x0a, magicEnd + 1);
    if (headerEnd < 0) {
      const reason =
        length === this.size
          ? 'the file ends inside the header'
          : `the header line is longer than ${HEADER_LIMIT} bytes`;
      throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected a one-line JSON header: ${reason}`);
    }
    let header: TraceHeader;
    try {
      header = JSON.parse(Utf8Decode(bytes.subarray(magicEnd + 1, headerEnd))) as TraceHeader;
    } catch (error) {
      throw new TraceError(
        'ERR_TRACE_HEADER',
        this.file,
        magicEnd + 1,
        'expected a JSON header: the header line is not JSON',
        { cause: error },
      );
    }
    const problem = headerProblem(header);
    if (problem !== null) throw new TraceError('ERR_TRACE_HEADER', this.file, magicEnd + 1, `expected ${problem}`);
    return { header, end: headerEnd + 1 };
  }
}

/**
 * One reading of the events: from the start (events, scan), which tells `ending`, or of one chunk
 * again (eventsAt), which tells nothing new.
 */
class Pass {
  /** events decoded so far, counting from the trace's first */
  read: number;
  /**
   * control mode's generators, run again over the controlled events in trace order; null once skipped bytes
   * put them out of step
   */
  derivation: Derivation | null;
  /** the rest of the trace cannot be decoded (outOfStep) */
  stopped = false;
  /** the last end record: its offset, the count it gives, and the events read before it */
  end: { at: number; count: number; read: number } | null = null;
  /** the first chunk that repeats the one before it byte for byte */
  repeated: number | null = null;
  /** records read for their lengths alone (quickEnding): a derived value is not drawn */
  lengthsOnly = false;

  constructor(
    derivation: Derivation | null,
    read: number,
    readonly ending: TraceEnding | null,
  ) {
    this.derivation = derivation;
    this.read = read;
  }
}
