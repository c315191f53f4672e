import { crc32 } from './crc32.js';
import { Derivation } from './derive.js';
import {
  ByteWriter,
  CHUNK_HEADER_BYTES,
  CHUNK_MARK,
  CONTROL_BITS,
  CONTROLLED,
  DERIVED,
  encoded,
  MAGIC_LINE,
  LITTLE_ENDIAN,
  MAX_RUN,
  putFloat64,
  putVarint32,
  Rec,
  Tag,
  TAG_MASK,
  zigzag,
  type ContextDef,
  type Encoded,
  type SiteDef,
  type SourceDef,
  type TraceHeader,
} from './format.js';
import {
  BigInt,
  DataViewSetUint32,
  Float64Array,
  MathMin,
  NumberIsSafeInteger,
  ObjectIs,
  SafeMap,
  Utf8Encode,
  TypedArrayBuffer,
  TypedArrayCopyWithin,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from './primordials.js';

/** Where the chunks go; the hook passes one built from the saved real `fs.writeSync`. */
export interface Sink {
  write(bytes: Uint8Array): void;
}

/**
 * Each event is encoded as it is recorded, straight into the chunk being built, and the chunk is
 * written when it holds `capacity` events (or a megabyte) or the run ends. Encoding per call costs
 * a wrapper a few stores; buffering events in columns and encoding them once per chunk was the
 * largest part of the hook's cost on a simulation, and its loop ran cold for the first chunks
 * (once per 8192 events, too rarely to be compiled soon). Every chunk is one `write`, so a killed
 * run leaves whole chunks and at most one torn one, which the reader drops.
 *
 * Runs: an event with no site that repeats the api, tag byte and context of the event before it
 * in the chunk joins a run record, which costs its value alone (format.ts). The run's count goes
 * before its values, so it is written when the run ends, in as many bytes as it needs. A run of
 * uncontrolled doubles keeps its values in `staged` until then (one store an event); any other run
 * writes them in place, and one longer than 127 moves them up once to make room for its count.
 */
export class TraceWriter {
  readonly capacity: number;
  /** grows as chunks need (reserve): a short run's few events fit the first 4 KiB */
  protected readonly out = new ByteWriter(1 << 12);
  private readonly sink: Sink;
  /**
   * control mode's generators, run again over the controlled events as they are recorded: made at
   * the first (an observed run has none), from the header's seed and API table
   */
  private derivation: Derivation | null = null;
  private readonly derivedFrom: Pick<TraceHeader, 'seed' | 'apis'>;
  /** events in the chunk being built */
  protected count = 0;
  /** events in the chunks written */
  private written = 0;
  /** the event count that asks for a flush: the capacity, or 1 once the run has ended */
  protected flushAt: number;
  /** what a run record repeats: the chunk's last event (api -1 before its first, or after a cut) */
  protected lastApi = -1;
  private lastTag = 0;
  protected lastCtx = 0;
  /** the open run: the offset of its count, or -1; and how many events it holds */
  protected runAt = -1;
  protected runLength = 0;
  /**
   * The open run's tag byte when its values are uncontrolled doubles, -1 otherwise. Such a run's
   * values wait in `staged`, one store each, and go into the chunk with the count when it closes.
   */
  protected runDoubles = -1;
  /** `staged`'s length, kept here: the fast path asks no getter (an uncurried call on Node 24) */
  protected stagedSize = 1024;
  protected staged: Float64Array<ArrayBufferLike> = new Float64Array(this.stagedSize);
  /**
   * `staged`'s first n values as bytes, at index n up to SHORT_RUN, each made at the first run of
   * its length: one copy writes a short run with no view made for it (a byte loop took 120 to 250
   * ns for 10 values, the copy about 20). Null until then, and again when `staged` grows: no index
   * is ever a hole, which a read or write would look up on the program's `Array.prototype`.
   */
  protected readonly stagedViews = noViews([]);
  /**
   * Where the event being encoded starts, -1 between events. A throw halfway through one (a bug;
   * the recorder reports it and flushes what came before) leaves bytes the flush cuts off.
   */
  protected eventAt = -1;
  /** false once a controlled event drew and never ended (draws()); set while one is being encoded */
  private derives = true;
  private drawPending = false;
  /** the async resource types of the contexts defined so far, encoded (defineContextKey) */
  private readonly types = new SafeMap<string, Encoded>();

  constructor(sink: Sink, header: TraceHeader, capacity = 8192) {
    this.sink = sink;
    this.capacity = capacity;
    this.flushAt = capacity;
    this.derivedFrom = header;
    sink.write(Utf8Encode(MAGIC_LINE + JSON.stringify(header) + '\n'));
    this.startChunk();
  }

  /** Events written so far, buffered ones included. */
  get events(): number {
    return this.written + this.count;
  }

  /**
   * Records one event whose value is a number (`Tag.none`, `f64`, `uint`, `hrtime`); true when the
   * chunk is due for a flush. The writer never flushes by itself, so a failing sink surfaces in the
   * caller's `flush()`, which can catch it, not in the program.
   */
  number(api: number, tag: number, site: number, ctx: number, value: number): boolean {
    if (
      tag === this.runDoubles &&
      api === this.lastApi &&
      ctx === this.lastCtx &&
      site === 0 &&
      this.runLength < this.stagedSize &&
      this.eventAt < 0
    ) {
      // Most events: one more uncontrolled double on the open run (a loop of draws or clock reads).
      this.staged[this.runLength++] = value;
      return ++this.count >= this.flushAt;
    }
    return this.numberEvent(api, tag, site, ctx, value);
  }

  /** number()'s other events, apart so that V8 can compile its fast path into every wrapper. */
  protected numberEvent(api: number, tag: number, site: number, ctx: number, value: number): boolean {
    let tagByte = tag;
    if ((tag & TAG_MASK) === Tag.uint && !isVarint(value)) tagByte = (tag & ~TAG_MASK) | Tag.f64;
    tagByte = this.settle(api, tagByte, value);
    this.begin(api, tagByte, site, ctx);
    if (this.runDoubles >= 0) this.stage(value);
    else if (!(tagByte & DERIVED)) {
      const valueTag = tagByte & TAG_MASK;
      if (valueTag === Tag.f64 || valueTag === Tag.hrtime) this.out.f64(value);
      else if (valueTag === Tag.uint) this.out.varint(value);
      else if (valueTag !== Tag.none) throw new Error(`value tag ${valueTag} is not a number's`);
    }
    return this.done();
  }

  /** `flags` carries the control bits (Control << CONTROL_SHIFT) for the value tags fixed by the method. */
  digest(api: number, site: number, ctx: number, high: number, low: number, flags = 0): boolean {
    const tagByte = this.settle(api, Tag.digest | flags, high);
    this.begin(api, tagByte, site, ctx);
    this.out.u32(high);
    this.out.u32(low);
    return this.done();
  }

  bigint(api: number, site: number, ctx: number, value: bigint, flags = 0): boolean {
    let tagByte = Tag.bigint | flags;
    if ((tagByte & CONTROL_BITS) === CONTROLLED && this.draws()) {
      const derived = this.derived().next(api, Tag.bigint);
      // biome-ignore lint/suspicious/noSelfCompare: a NaN test that asks no global the program may replace
      if (derived === derived && value === BigInt(derived)) tagByte |= DERIVED;
    }
    this.begin(api, tagByte, site, ctx);
    if (!(tagByte & DERIVED)) this.out.i64(value);
    return this.done();
  }

  /** A string (`Tag.string`) or a list of strings (`Tag.list`), with the tag's control bits. */
  object(api: number, tag: number, site: number, ctx: number, value: string | readonly string[]): boolean {
    const tagByte = this.settle(api, tag, 0);
    this.begin(api, tagByte, site, ctx);
    const out = this.out;
    if ((tagByte & TAG_MASK) === Tag.string) out.string(value as string);
    else {
      const list = value as readonly string[];
      out.varint(list.length);
      for (let i = 0; i < list.length; i++) out.string(list[i]!);
    }
    return this.done();
  }

  /** Raw bytes, for traces that hold what replay needs. Encoded now: the program may reuse its buffer. */
  bytes(api: number, site: number, ctx: number, value: Uint8Array, flags = 0): boolean {
    const tagByte = this.settle(api, Tag.bytes | flags, 0);
    this.begin(api, tagByte, site, ctx);
    const out = this.out;
    const length = TypedArrayLength(value);
    out.varint(length);
    out.reserve(length);
    TypedArraySet(out.bytes, value, out.length);
    out.length += length;
    return this.done();
  }

  /** An output: the digest of its bytes, their count, and a head (the text's start, a file's path). */
  chunk(api: number, site: number, ctx: number, high: number, low: number, length: number, head: string): boolean {
    const tagByte = this.settle(api, Tag.chunk, high);
    this.begin(api, tagByte, site, ctx);
    const out = this.out;
    out.u32(high);
    out.u32(low);
    out.varint(length);
    out.string(head);
    return this.done();
  }

  /** Serialized before a byte is written: a definition that cannot be serialized leaves none behind. */
  defineSite(id: number, def: SiteDef): void {
    this.defineSiteJson(id, siteJson(def));
  }

  /**
   * A site definition already in JSON (a reader's tests write mistyped ones). Definitions go in
   * line, between events: the reader takes records in order, and a run may go on after one.
   */
  defineSiteJson(id: number, json: string): void {
    const out = this.definition(Rec.site, id);
    out.string(json);
    this.defined();
  }

  /** A generated file's source map (format.ts SourceDef), before the first site that names the file. */
  defineSource(id: number, def: SourceDef): void {
    const out = this.definition(Rec.source, id);
    out.string(def.file);
    out.string(def.path);
    out.string(def.map);
    this.defined();
  }

  defineContext(id: number, def: ContextDef): void {
    const out = this.definition(Rec.context, id);
    out.string(def.key);
    out.string(def.type);
    this.defined();
  }

  /**
   * A context whose key is 64 bits (the hook's): written as its 16 hex digits, with no string made,
   * and its resource type from the types encoded so far (`Timeout`, `PROMISE`: a handful in most
   * programs, each encoded once; TextEncoder's way cost a view and a call into C++ per context).
   */
  defineContextKey(id: number, high: number, low: number, type: string): void {
    let bytes = this.types.get(type);
    if (bytes === undefined) {
      bytes = encoded(type);
      if (this.types.size < MAX_TYPES) this.types.set(type, bytes);
    }
    const out = this.definition(Rec.context, id);
    out.hex64(high, low);
    out.encoded(bytes);
    this.defined();
  }

  flush(): void {
    this.between();
    if (this.count === 0 && this.out.length === CHUNK_HEADER_BYTES) return;
    this.endChunk();
  }

  /**
   * Flushes and writes the end record. Events after it (late exit listeners) are flushed one by
   * one, each followed by a fresh end record, so the file still ends complete.
   */
  end(exitCode: number): void {
    this.flushAt = 1;
    this.between();
    const out = this.out;
    out.u8(Rec.end);
    out.varint(this.written + this.count);
    out.varint(zigzag(exitCode));
    this.endChunk();
  }

  /**
   * The tag byte as written: a value control mode drew is left out once the derivation has given
   * the same value (DERIVED). The derivation sees every controlled event and its tag as written,
   * as the reader will: both draw for exactly the same events.
   */
  private settle(api: number, tagByte: number, value: number): number {
    if ((tagByte & CONTROL_BITS) !== CONTROLLED || !this.draws()) return tagByte;
    const derived = this.derived().next(api, tagByte & TAG_MASK);
    // NaN is "does not follow from the seed", never a derived value, even for a NaN recorded
    // biome-ignore lint/suspicious/noSelfCompare: a NaN test that asks no global the program may replace
    return derived === derived && ObjectIs(derived, value) ? tagByte | DERIVED : tagByte;
  }

  private derived(): Derivation {
    this.derivation ??= new Derivation(this.derivedFrom);
    return this.derivation;
  }

  /**
   * Whether a controlled event may draw from the derivation. An event that drew and then threw
   * never reaches the trace, so the reader would draw once less from then on: the values after it
   * are written out instead, and the trace stays right at the cost of their bytes.
   */
  private draws(): boolean {
    if (this.drawPending) this.derives = false;
    this.drawPending = this.derives;
    return this.derives;
  }

  /** Starts an event: in the open run, in a new run, or under a head of its own. */
  protected begin(api: number, tagByte: number, site: number, ctx: number): void {
    if (this.eventAt >= 0) this.cutPartial();
    const out = this.out;
    if (site === 0 && api === this.lastApi && tagByte === this.lastTag && ctx === this.lastCtx) {
      if (this.runAt >= 0 && this.runLength < MAX_RUN) {
        this.eventAt = out.length;
        this.runLength++;
        return;
      }
      this.closeRun();
      this.eventAt = out.length;
      out.u8(Rec.run);
      this.runAt = out.length;
      this.runLength = 1;
      const valueTag = tagByte & TAG_MASK;
      if ((tagByte & ~TAG_MASK) === 0 && (valueTag === Tag.f64 || valueTag === Tag.hrtime)) this.runDoubles = tagByte;
      else out.u8(1); // the count's first byte; values follow it
      return;
    }
    this.closeRun();
    this.eventAt = out.length;
    out.head(api, tagByte, site, ctx);
    this.lastApi = api;
    this.lastTag = tagByte;
    this.lastCtx = ctx;
  }

  /** Ends a definition record. */
  protected defined(): void {
    this.eventAt = -1;
  }

  /** Ends an event: true when the chunk is due for a flush. */
  protected done(): boolean {
    this.eventAt = -1;
    this.drawPending = false;
    return ++this.count >= this.flushAt || this.out.length >= FLUSH_BYTES;
  }

  /**
   * Starts a definition record between events; the caller ends it with `defined()`. One that throws
   * halfway is cut as an event would be.
   */
  private definition(kind: number, id: number): ByteWriter {
    this.between();
    const out = this.out;
    this.eventAt = out.length;
    out.u8(kind);
    out.varint(id);
    return out;
  }

  /** Between events: what an event that threw left is cut, and the open run closed. */
  private between(): void {
    this.cutPartial();
    this.closeRun();
  }

  /** The open run's last value, in `staged`, grown up to MAX_RUN values if need be. */
  private stage(value: number): void {
    const index = this.runLength - 1;
    if (index === this.stagedSize) {
      const size = MathMin(index * 2, MAX_RUN);
      const grown = new Float64Array(size);
      TypedArraySet(grown, this.staged);
      this.stageIn(grown, size);
    }
    this.staged[index] = value;
  }

  /** Stages the values of runs of doubles in `staged`, which holds `size` of them. */
  protected stageIn(staged: Float64Array, size: number): void {
    this.staged = staged;
    this.stagedSize = size;
    noViews(this.stagedViews);
  }

  /** The view of `staged`'s first `length` values (length at most SHORT_RUN), made once. */
  private viewOf(length: number): Uint8Array {
    return (this.stagedViews[length] ??= new Uint8Array(TypedArrayBuffer(this.staged), 0, length * 8));
  }

  /** Writes the open run's count, in the bytes it needs, in front of its values. */
  protected closeRun(): void {
    const at = this.runAt;
    if (at < 0) return;
    this.runAt = -1;
    const length = this.runLength;
    if (this.runDoubles >= 0) {
      // Nothing went into the chunk since the run byte: the count, then the staged values.
      this.runDoubles = -1;
      appendDoubles(this.out, this.staged, length, length <= SHORT_RUN ? this.viewOf(length) : null);
      return;
    }
    const width = length < 0x80 ? 1 : length < 0x4000 ? 2 : 3;
    const out = this.out;
    if (width > 1) {
      out.reserve(width - 1);
      TypedArrayCopyWithin(out.bytes, at + width, at + 1, out.length);
      out.length += width - 1;
    }
    putVarint32(out.bytes, at, length);
  }

  /** Drops what an event that threw midway left, so the chunk holds whole events only. */
  protected cutPartial(): void {
    if (this.drawPending) this.drawPending = this.derives = false;
    const at = this.eventAt;
    if (at < 0) return;
    this.eventAt = -1;
    if (this.runAt >= 0) {
      if (at >= this.runAt)
        this.runLength--; // the event went on a run, which keeps the events before it
      else this.runAt = this.runDoubles = -1; // the event opened the run: the run record goes with it
    }
    this.out.length = at;
    this.lastApi = -1; // the event a run would repeat is gone: the next event gets a head
  }

  private startChunk(): void {
    const out = this.out;
    out.clear();
    out.reserve(CHUNK_HEADER_BYTES);
    out.length = CHUNK_HEADER_BYTES;
    this.lastApi = -1;
    this.runAt = this.runDoubles = -1;
  }

  /** Writes the chunk whole, then starts the next; its events count as written even if the write fails. */
  protected endChunk(): void {
    const out = this.out;
    this.written += this.count;
    this.count = 0;
    try {
      this.sink.write(sealChunk(out));
    } finally {
      this.startChunk();
    }
  }
}

/**
 * A run's count, then its values, staged as doubles, at the end of `out`. `view` (or null) is a
 * kept view of the values' bytes: a short run is copied with no view made for it.
 */
export function appendDoubles(out: ByteWriter, staged: Float64Array, length: number, view: Uint8Array | null): void {
  out.varint(length);
  out.reserve(length * 8);
  if (LITTLE_ENDIAN) {
    TypedArraySet(out.bytes, view ?? new Uint8Array(TypedArrayBuffer(staged), 0, length * 8), out.length);
  } else {
    for (let i = 0; i < length; i++) putFloat64(out.bytes, out.length + i * 8, staged[i]!);
  }
  out.length += length * 8;
}

/** The chunk in `out`, its payload after the header's room, with the header filled in. */
export function sealChunk(out: ByteWriter): Uint8Array {
  out.bytes[0] = CHUNK_MARK;
  DataViewSetUint32(out.view, 1, out.length - CHUNK_HEADER_BYTES, true);
  DataViewSetUint32(out.view, 5, crc32(out.written(CHUNK_HEADER_BYTES)), true);
  return out.written();
}

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
/** The longest run of doubles whose bytes have a view kept: a longer one makes one for its copy. */
const SHORT_RUN = 64;

/** `views` holding null at each index up to SHORT_RUN: no view of `staged` made yet. */
function noViews(views: (Uint8Array | null)[]): (Uint8Array | null)[] {
  for (let n = 0; n <= SHORT_RUN; n++) views[n] = null;
  return views;
}
/**
 * The most resource types kept encoded: a program that names its own AsyncResources by the
 * thousand has the rest encoded each time.
 */
const MAX_TYPES = 256;
/** A chunk this large is written whatever its event count: long strings and listings add up. */
const FLUSH_BYTES = 1 << 20;

function isVarint(value: number): boolean {
  return NumberIsSafeInteger(value) && value >= 0;
}
