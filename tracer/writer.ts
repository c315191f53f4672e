import { crc32 } from './crc32.js';
import { Derivation } from './derive.js';
import {
  ByteWriter,
  CHUNK_HEADER_BYTES,
  CHUNK_MARK,
  Control,
  CONTROL_MASK,
  CONTROL_SHIFT,
  DERIVED,
  MAGIC_LINE,
  MAX_RUN,
  Rec,
  Tag,
  TAG_MASK,
  zigzag,
  type ContextDef,
  type SiteDef,
  type TraceHeader,
} from './format.js';
import {
  ArrayBuffer,
  BigInt,
  BigInt64Array,
  DataViewSetUint32,
  Float64Array,
  Number,
  NumberIsSafeInteger,
  ObjectIs,
  TextEncoderEncode,
  TypedArrayLength,
  TypedArraySet,
  Uint32Array,
  Uint8Array,
} from './primordials.js';

/** Where the chunks go; the hook passes one built from the saved real `fs.writeSync`. */
export interface Sink {
  write(bytes: Uint8Array): void;
}

/**
 * Events go into preallocated columns (no object per event: the GC would notice) and are encoded
 * into one chunk when the columns fill or the run ends. Every chunk is one `write`, so a killed run
 * leaves whole chunks and at most one torn one, which the reader drops.
 */
export class TraceWriter {
  readonly capacity: number;
  private readonly api: Uint8Array;
  private readonly tag: Uint8Array;
  private readonly site: Uint32Array;
  private readonly ctx: Uint32Array;
  private readonly num: Float64Array;
  /** `num`'s buffer: a long run of doubles is written as it lies in memory (ByteWriter.doubles) */
  private readonly numBuffer: ArrayBuffer;
  private readonly aux: Float64Array;
  private readonly big: BigInt64Array;
  private readonly obj: unknown[];
  private count = 0;
  private written = 0;
  /** the buffer length that asks for a flush: the capacity, or 1 once the run has ended */
  private flushAt: number;
  /**
   * site and context definitions not yet in a chunk, encoded when made: a definition kept as an
   * object until the flush would live through thousands of events, and the GC would move it twice
   */
  private readonly pending = new ByteWriter(1 << 10);
  private readonly out = new ByteWriter();
  private readonly sink: Sink;
  /** control mode's generators, run again over the controlled events as they are encoded */
  private readonly derivation: Derivation;

  constructor(sink: Sink, header: TraceHeader, capacity = 8192) {
    this.sink = sink;
    this.capacity = capacity;
    this.flushAt = capacity;
    this.api = new Uint8Array(capacity);
    this.tag = new Uint8Array(capacity);
    this.site = new Uint32Array(capacity);
    this.ctx = new Uint32Array(capacity);
    this.numBuffer = new ArrayBuffer(capacity * 8);
    this.num = new Float64Array(this.numBuffer);
    this.aux = new Float64Array(capacity);
    this.big = new BigInt64Array(capacity);
    // no holes: a write into one would look for a setter up the program's Array.prototype
    this.obj = [];
    for (let i = 0; i < capacity; i++) this.obj[i] = undefined;
    this.derivation = new Derivation(header);
    sink.write(TextEncoderEncode(encoder, MAGIC_LINE + JSON.stringify(header) + '\n'));
  }

  /** Events written so far, buffered ones included. */
  get events(): number {
    return this.written + this.count;
  }

  /**
   * Buffers one event; true when the buffer is due for a flush. The writer never flushes by itself,
   * so a failing sink surfaces in the caller's `flush()`, which can catch it, not in the program.
   */
  number(api: number, tag: number, site: number, ctx: number, value: number): boolean {
    const i = this.count;
    this.api[i] = api;
    this.tag[i] = tag;
    this.site[i] = site;
    this.ctx[i] = ctx;
    this.num[i] = value;
    return ++this.count >= this.flushAt;
  }

  /** `flags` carries the control bits (Control << CONTROL_SHIFT) for the value tags fixed by the method. */
  digest(api: number, site: number, ctx: number, high: number, low: number, flags = 0): boolean {
    this.aux[this.count] = low;
    return this.number(api, Tag.digest | flags, site, ctx, high);
  }

  bigint(api: number, site: number, ctx: number, value: bigint, flags = 0): boolean {
    this.big[this.count] = value;
    return this.number(api, Tag.bigint | flags, site, ctx, 0);
  }

  object(api: number, tag: number, site: number, ctx: number, value: string | readonly string[] | Uint8Array): boolean {
    this.obj[this.count] = value;
    return this.number(api, tag, site, ctx, 0);
  }

  /** Raw bytes, for traces that hold what replay needs. The bytes are copied now: the program may reuse its buffer. */
  bytes(api: number, site: number, ctx: number, value: Uint8Array, flags = 0): boolean {
    this.obj[this.count] = copyBytes(value);
    return this.number(api, Tag.bytes | flags, site, ctx, 0);
  }

  /** An output: the digest of its bytes, their count, and a head (the text's start, a file's path). */
  chunk(api: number, site: number, ctx: number, high: number, low: number, length: number, head: string): boolean {
    this.aux[this.count] = low;
    this.big[this.count] = BigInt(length);
    this.obj[this.count] = head;
    return this.number(api, Tag.chunk, site, ctx, high);
  }

  /** Serialized before a byte is written: a definition that cannot be serialized leaves none behind. */
  defineSite(id: number, def: SiteDef): void {
    this.defineSiteJson(id, siteJson(def));
  }

  /** A site definition already in JSON (a reader's tests write mistyped ones). */
  defineSiteJson(id: number, json: string): void {
    this.pending.u8(Rec.site);
    this.pending.varint(id);
    this.pending.string(json);
  }

  defineContext(id: number, def: ContextDef): void {
    this.pending.u8(Rec.context);
    this.pending.varint(id);
    this.pending.string(def.key);
    this.pending.string(def.type);
  }

  /** A context whose key is 64 bits (the hook's): written as its 16 hex digits, with no string made. */
  defineContextKey(id: number, high: number, low: number, type: string): void {
    this.pending.u8(Rec.context);
    this.pending.varint(id);
    this.pending.hex64(high, low);
    this.pending.string(type);
  }

  flush(): void {
    if (this.count === 0 && this.pending.length === 0) return;
    const out = this.startChunk();
    this.encodeDefinitions(out);
    this.encodeEvents(out);
    this.endChunk(out);
  }

  /**
   * Flushes and writes the end record. Events after it (late exit listeners) are flushed one by
   * one, each followed by a fresh end record, so the file still ends complete.
   */
  end(exitCode: number): void {
    this.flushAt = 1;
    const out = this.startChunk();
    this.encodeDefinitions(out);
    this.encodeEvents(out);
    out.u8(Rec.end);
    out.varint(this.written);
    out.varint(zigzag(exitCode));
    this.endChunk(out);
  }

  private startChunk(): ByteWriter {
    const out = this.out;
    out.clear();
    out.reserve(CHUNK_HEADER_BYTES);
    out.length = CHUNK_HEADER_BYTES;
    return out;
  }

  private endChunk(out: ByteWriter): void {
    const payload = out.written(CHUNK_HEADER_BYTES);
    out.bytes[0] = CHUNK_MARK;
    DataViewSetUint32(out.view, 1, out.length - CHUNK_HEADER_BYTES, true);
    DataViewSetUint32(out.view, 5, crc32(payload), true);
    this.sink.write(out.written());
  }

  private encodeDefinitions(out: ByteWriter): void {
    out.raw(this.pending.buffer, 0, this.pending.length);
    this.pending.clear();
  }

  /**
   * An event that repeats the api, tag byte and context of the one before it, with no site, goes
   * into a run record: a loop of draws costs its values alone (format.ts).
   */
  private encodeEvents(out: ByteWriter): void {
    const count = this.count;
    for (let i = 0; i < count; i++) this.settleTag(i);
    const { api, tag, site, ctx } = this;
    let i = 0;
    while (i < count) {
      const apiId = api[i]!;
      const tagByte = tag[i]!;
      const context = ctx[i]!;
      if (i > 0 && site[i] === 0 && apiId === api[i - 1] && tagByte === tag[i - 1] && context === ctx[i - 1]) {
        const limit = count - i < MAX_RUN ? count : i + MAX_RUN;
        let end = i + 1;
        while (end < limit && site[end] === 0 && api[end] === apiId && tag[end] === tagByte && ctx[end] === context) end++;
        out.u8(Rec.run);
        out.varint(end - i);
        // A run's events share one tag byte: derived values take no bytes, doubles are copied whole.
        if (tagByte & DERIVED) {
          i = end;
          continue;
        }
        const valueTag = tagByte & TAG_MASK;
        if (valueTag === Tag.f64 || valueTag === Tag.hrtime) out.doubles(this.num, this.numBuffer, i, end);
        else for (let j = i; j < end; j++) this.encodeValue(out, j);
        i = end;
        continue;
      }
      out.head(apiId, tagByte, site[i]!, context);
      this.encodeValue(out, i);
      i++;
    }
    this.written += count;
    this.count = 0;
  }

  /**
   * The tag byte as written: a "count" that is not a varint is kept exact as a double, and a value
   * control mode drew is left out once the derivation has given the same value (DERIVED).
   */
  private settleTag(i: number): void {
    let tagByte = this.tag[i]!;
    if ((tagByte & TAG_MASK) === Tag.uint && !isVarint(this.num[i]!)) tagByte = (tagByte & ~TAG_MASK) | Tag.f64;
    // The derivation sees the tag as written, as the reader will: both draw for exactly the same events.
    if ((tagByte & CONTROL_BITS) === CONTROLLED && this.derived(i, tagByte & TAG_MASK)) tagByte |= DERIVED;
    this.tag[i] = tagByte;
  }

  /** Whether event i's value is the one the derivation draws next (NaN, "not derivable", never is). */
  private derived(i: number, tag: number): boolean {
    const value = this.derivation.next(this.api[i]!, tag);
    return tag === Tag.bigint ? value === value && this.big[i] === BigInt(value) : ObjectIs(value, this.num[i]);
  }

  private encodeValue(out: ByteWriter, i: number): void {
    const tagByte = this.tag[i]!;
    if (tagByte & DERIVED) return;
    switch (tagByte & TAG_MASK) {
      case Tag.none:
        break;
      case Tag.f64:
      case Tag.hrtime:
        out.f64(this.num[i]!);
        break;
      case Tag.uint:
        out.varint(this.num[i]!);
        break;
      case Tag.bigint:
        out.i64(this.big[i]!);
        break;
      case Tag.digest:
        out.u32(this.num[i]!);
        out.u32(this.aux[i]!);
        break;
      case Tag.string:
        out.string(this.obj[i] as string);
        this.obj[i] = undefined;
        break;
      case Tag.list: {
        const list = this.obj[i] as readonly string[];
        out.varint(list.length);
        for (let j = 0; j < list.length; j++) out.string(list[j]!);
        this.obj[i] = undefined;
        break;
      }
      case Tag.bytes: {
        const bytes = this.obj[i] as Uint8Array;
        const length = TypedArrayLength(bytes);
        out.varint(length);
        out.reserve(length);
        TypedArraySet(out.bytes, bytes, out.length);
        out.length += length;
        this.obj[i] = undefined;
        break;
      }
      case Tag.chunk:
        out.u32(this.num[i]!);
        out.u32(this.aux[i]!);
        out.varint(Number(this.big[i]!));
        out.string(this.obj[i] as string);
        this.obj[i] = undefined;
        break;
      default:
        throw new Error(`unknown value tag ${tagByte & TAG_MASK}`);
    }
  }
}

/** A copy of `bytes`, made with nothing the program can replace (`slice` asks its `constructor`). */
function copyBytes(bytes: Uint8Array): Uint8Array {
  const copy = new Uint8Array(TypedArrayLength(bytes));
  TypedArraySet(copy, bytes);
  return copy;
}

const encoder = new TextEncoder();
// Saved when the hook loads. Given a string, it consults no toJSON: the program's code never runs here.
const quote = JSON.stringify as (value: string) => string;

/**
 * A site definition as JSON, written out field by field: `JSON.stringify(def)` would call a
 * program's `Object.prototype.toJSON` from inside the program's own `Date.now()`.
 */
function siteJson(def: SiteDef): string {
  let frames = '';
  for (let i = 0; i < def.frames.length; i++) {
    const { file, line, column, fn, package: pkg } = def.frames[i]!;
    const text = `{"file":${quote(file)},"line":${line},"column":${column},"fn":${fn === null ? 'null' : quote(fn)},"package":${pkg === null ? 'null' : quote(pkg)}}`;
    frames += i === 0 ? text : `,${text}`;
  }
  return `{"frames":[${frames}],"skipped":${def.skipped}}`;
}
const CONTROL_BITS = CONTROL_MASK << CONTROL_SHIFT;
const CONTROLLED = Control.detdrift << CONTROL_SHIFT;

function isVarint(value: number): boolean {
  return NumberIsSafeInteger(value) && value >= 0;
}
