/**
 * The trace file format, version 4.
 *
 *   DETDRIFT-TRACE 4\n        magic line: format name and version
 *   {...header JSON...}\n     one line: TraceHeader
 *   chunk*                    binary, each written whole by one write call
 *
 * A chunk is `0xDD, u32le payload length, u32le crc32(payload), payload`. A run killed mid-write
 * leaves at most one incomplete chunk at the end, which the reader drops and reports as truncated.
 * A chunk that does not check out with more bytes after it is damage: the reader skips to the next
 * chunk whose marker, length and checksum hold, and reports the bytes it skipped (framing.ts).
 * The payload is a sequence of records; its first byte tells which:
 *
 *   1..0xEF   an event: api id, tag byte, site id (varint, 0 = no site taken), context id (varint),
 *             value (by tag)
 *   0xF0      a run: count (varint, 1..MAX_RUN), then that many events with the api, tag byte and
 *             context of the event before it in the chunk and no site, each written as its value
 *             alone: a loop of draws costs its values and nothing else
 *   0xF1      a call site definition: id, JSON of the normalized stack
 *   0xF2      an async context definition: id, key (its lineage folded into 64 bits, hex), type
 *   0xF3      a generated file's source map, held only in the traced process's memory (code a
 *             loader or runner transformed): id, the file as frames name it, the path the engine
 *             named it by, the map (an inline `data:` URL, or its JSON), before the first site
 *             definition that names the file
 *   0xFE      end of run: event count, exit code (zigzag); a complete trace ends with one
 *
 * The tag byte holds the value tag (bits 0-3), who decided the value (Control, bits 4-5) and
 * DERIVED (bit 7): the value is not written because control mode drew it from the seed, and the
 * reader draws it again (tracer/derive.ts). A chunk's payload only refers to the chunks before it
 * (definitions, the generators' state), so a readable prefix stays readable.
 *
 * Older versions are refused with ERR_TRACE_VERSION, as a newer version is: version 1 had no runs
 * and no DERIVED; version 2 digested values with FNV-1a, and seeded control mode's generators with
 * it, so its digests and derived values mean something else (tracer/digest.ts). Version 3 is read:
 * it is version 4 without source maps.
 */

import {
  ArrayBuffer,
  BigInt64Array,
  DataView,
  Float64Array,
  MathFloor,
  Utf8Encode,
  Utf8EncodeInto,
  TypedArrayCopyWithin,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from './primordials.js';

export const FORMAT_NAME = 'DETDRIFT-TRACE';
export const FORMAT_VERSION = 4;
/** The oldest version the reader takes: each version since only added records. */
export const OLDEST_READABLE_VERSION = 3;
export const MAGIC_LINE = `${FORMAT_NAME} ${FORMAT_VERSION}\n`;
export const TRACE_EXTENSION = '.ddtrace';

export const CHUNK_MARK = 0xdd;
export const CHUNK_HEADER_BYTES = 9;

export const Rec = Object.freeze({ run: 0xf0, site: 0xf1, context: 0xf2, source: 0xf3, end: 0xfe });
/** The longest run record: a reader meets no run of derived values (no bytes each) longer than this. */
export const MAX_RUN = 0xffff;

/** How an event's value is stored. */
export const Tag = Object.freeze({
  none: 0,
  /** a double: clocks, Math.random, a randomInt in a trace that holds values for replay */
  f64: 1,
  /** a non-negative integer: delays, sizes, counts, pids */
  uint: 2,
  /** a signed 64-bit integer: process.hrtime.bigint */
  bigint: 3,
  /** nanoseconds as a double, shown as process.hrtime's [seconds, nanoseconds] */
  hrtime: 4,
  /** a UTF-8 string */
  string: 5,
  /** a 64-bit digest of bytes (tracer/digest.ts: MurmurHash3_x86_128, first 64 bits), shown as 16 hex digits */
  digest: 6,
  /** a list of strings: a directory listing in the order the program saw it */
  list: 7,
  /**
   * what the program showed the world: a digest of the bytes (`\r\n` read as `\n`, tracer/digest.ts
   * digestLines; the project root as ROOT_TOKEN), their length, and a head (text or a path)
   */
  chunk: 8,
  /** raw bytes, only in traces made for replay (the header's `holds` says so: they can be secrets; held.ts) */
  bytes: 9,
});

/**
 * What the project root becomes in a recorded output (instrument/root-mask.ts): a bump's base runs
 * in a worktree and head in the project, and a stack trace the program prints names either.
 */
export const ROOT_TOKEN = '<root>';

/** Who decided an event's value: the real source, detdrift's control mode, or the program's own stub. */
export const Control = Object.freeze({ none: 0, detdrift: 1, program: 2, replay: 3 });
export const CONTROL_SHIFT = 4;
export const CONTROL_MASK = 0x03;
/** A tag byte's Control bits, and their values for control mode's and a replay's values. */
export const CONTROL_BITS = CONTROL_MASK << CONTROL_SHIFT;
export const CONTROLLED = Control.detdrift << CONTROL_SHIFT;
export const REPLAYED = Control.replay << CONTROL_SHIFT;
export const TAG_MASK = 0x0f;
/** In a tag byte: the value is left out, it follows from the seed (tracer/derive.ts). */
export const DERIVED = 0x80;

/** What the hook does with the values it records (DESIGN.md, The hook); a trace header names one. */
export const MODES = Object.freeze(['observe', 'control', 'replay', 'perturb'] as const);
export type Mode = (typeof MODES)[number];

export interface ApiRow {
  readonly api: string;
  readonly form: string;
  readonly family: string;
}

export interface TraceHeader {
  readonly format: typeof FORMAT_NAME;
  readonly version: number;
  readonly tool: { readonly name: 'detdrift'; readonly version: string };
  readonly node: string;
  readonly platform: string;
  readonly arch: string;
  readonly mode: Mode;
  readonly seed: string | null;
  /** the traced process: its argv with the project root replaced by `.` */
  readonly command: readonly string[];
  /** spawn lineage: `0` is the root, `0.2` its second child, `0.w1` its first worker */
  readonly lineage: string;
  readonly root: { readonly name: string | null; readonly version: string | null };
  readonly lockfile: { readonly file: string; readonly sha256: string } | null;
  /** the api table: an event's api byte indexes it */
  readonly apis: readonly ApiRow[];
  /**
   * how call sites were taken, counting each API's calls from 0: every call below `first`, and
   * stretch k (k = 0, 1, ...) of `doubling` samples, which starts at call every·doubling·(2^k − 1)
   * and takes one call in every·2^k (`doubling` 0 or absent: one stretch, one call in `every`,
   * forever); and the calls in `at` ([api, ordinal among that API's calls]), asked for by the CLI.
   * Besides: the calls of a `vm` context are sampled by this rule counting that context's calls
   * alone, and the first call of an API in each async context newer than any it was called in
   * before is taken, thinned as calls are (instrument/schedule.ts NewContexts)
   */
  readonly sites: {
    readonly first: number;
    readonly every: number;
    readonly doubling?: number;
    readonly at?: ReadonlyArray<readonly [number, number]>;
  };
  /** what the values hold beyond digests (replay needs raw bytes) */
  readonly holds: readonly string[];
  /** perturb mode only: each dimension varied, its variant, and what this run got (instrument/perturb.ts) */
  readonly perturb?: ReadonlyArray<{ readonly dimension: string; readonly variant: string; readonly detail: string }>;
}

export interface Frame {
  /** project-relative path, `name@version/path` inside node_modules, `node:...` for builtins */
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly fn: string | null;
  /** `name@version` for frames in node_modules, null for the project's own code */
  readonly package: string | null;
}

export interface SiteDef {
  readonly frames: readonly Frame[];
  /** detdrift's own and node's internal frames left out of `frames` */
  readonly skipped: number;
}

/**
 * The source map of code that existed only in the traced process (a transformed TypeScript file):
 * what the reading side needs to show its frames at their original lines (diffing/source-maps/).
 */
export interface SourceDef {
  /** the generated file as frames name it: project-relative, or `name@version/path` */
  readonly file: string;
  /** the file's name as the engine gave it: an absolute path or a `file:` URL, which map sources are relative to */
  readonly path: string;
  /** the map: a `data:` URL as the code's `sourceMappingURL` comment held it, or the map's JSON */
  readonly map: string;
}

/** An async context: `key` names it the same in every run (its lineage, folded into 64 bits). */
export interface ContextDef {
  readonly key: string;
  /** the async resource type that opened it: Timeout, PROMISE, FSREQCALLBACK, ... */
  readonly type: string;
}

/**
 * A growable byte buffer with the few encodings the format needs. The trace writer runs inside the
 * traced program, so it calls only saved built-ins (primordials.ts), and it keeps its buffer's size
 * itself rather than asking `length`, a getter the program can replace.
 */
export class ByteWriter {
  bytes!: Uint8Array;
  view!: DataView;
  /** `bytes`'s buffer and its size, kept here: `buffer` and `length` are getters the program can replace */
  buffer!: ArrayBufferLike;
  private size = 0;
  length = 0;
  /**
   * The shared memory the bytes live in (a worker's chunk, which its parent can read: mirror.ts),
   * or null. Outgrowing it moves them into a buffer of the writer's own until the next `clear()`.
   */
  private home: SharedArrayBuffer | null = null;

  constructor(capacity = 1 << 16) {
    this.use(new ArrayBuffer(capacity));
  }

  reserve(extra: number): void {
    const needed = this.length + extra;
    if (needed <= this.size) return;
    let size = this.size * 2;
    while (size < needed) size *= 2;
    const written = this.written();
    this.use(new ArrayBuffer(size));
    TypedArraySet(this.bytes, written);
  }

  /** Moves the bytes written so far into `home`, which they go back to whenever they are cleared. */
  moveHome(home: SharedArrayBuffer): void {
    const written = this.written();
    this.home = home;
    this.use(home);
    TypedArraySet(this.bytes, written);
  }

  /** Whether the bytes are in `home`, where the parent's hook can read them. */
  get atHome(): boolean {
    return this.buffer === this.home;
  }

  private use(buffer: ArrayBufferLike): void {
    this.buffer = buffer;
    this.bytes = new Uint8Array(buffer);
    this.size = TypedArrayLength(this.bytes);
    this.view = new DataView(buffer);
  }

  /** The bytes written so far from `from` on, as a view on the buffer (no copy). */
  written(from = 0): Uint8Array {
    return new Uint8Array(this.buffer, from, this.length - from);
  }

  u8(value: number): void {
    this.reserve(1);
    this.bytes[this.length++] = value;
  }

  u32(value: number): void {
    this.reserve(4);
    const bytes = this.bytes;
    const at = this.length;
    bytes[at] = value;
    bytes[at + 1] = value >>> 8;
    bytes[at + 2] = value >>> 16;
    bytes[at + 3] = value >>> 24;
    this.length = at + 4;
  }

  /** LEB128 for integers up to 2^53. */
  varint(value: number): void {
    this.reserve(8);
    if (value < 0x80000000) {
      // the usual case (ids, counts, small values) in int32 arithmetic
      while (value >= 0x80) {
        this.bytes[this.length++] = (value & 0x7f) | 0x80;
        value >>>= 7;
      }
      this.bytes[this.length++] = value;
      return;
    }
    while (value >= 0x80) {
      this.bytes[this.length++] = (value % 0x80) | 0x80;
      value = MathFloor(value / 0x80);
    }
    this.bytes[this.length++] = value;
  }

  /**
   * An event's head: api id, tag byte, site and context (both below 2^32), under one `reserve`:
   * an event is written for most calls, and four reserves were a fifth of encoding it.
   */
  head(api: number, tag: number, site: number, ctx: number): void {
    this.reserve(12);
    const bytes = this.bytes;
    bytes[this.length] = api;
    bytes[this.length + 1] = tag;
    this.length = putVarint32(bytes, putVarint32(bytes, this.length + 2, site), ctx);
  }

  f64(value: number): void {
    this.reserve(8);
    putFloat64(this.bytes, this.length, value);
    this.length += 8;
  }

  i64(value: bigint): void {
    this.reserve(8);
    scratchBigInt[0] = value;
    putScratch(this.bytes, this.length);
    this.length += 8;
  }

  string(value: string): void {
    const maxBytes = value.length * 3;
    this.reserve(maxBytes + 8);
    // Encode after a worst-case length slot, then move the bytes down to sit after the real length.
    const start = this.length + 8;
    const written = Utf8EncodeInto(value, new Uint8Array(this.buffer, start, maxBytes));
    this.varint(written);
    TypedArrayCopyWithin(this.bytes, this.length, start, start + written);
    this.length += written;
  }

  /**
   * 64 bits as a string of 16 lowercase hex digits, as `digestHex` spells them. Each digit is
   * reckoned, not looked up: a table read from here is a context load, a hole check and a bounds
   * check per digit, and every timer and context a program makes writes one of these.
   */
  hex64(high: number, low: number): void {
    this.reserve(17);
    const bytes = this.bytes;
    const at = this.length;
    bytes[at] = 16;
    for (let i = 0, shift = 28; i < 8; i++, shift -= 4) {
      const upper = (high >>> shift) & 0xf;
      const lower = (low >>> shift) & 0xf;
      bytes[at + 1 + i] = upper + (upper < 10 ? 0x30 : 0x57);
      bytes[at + 9 + i] = lower + (lower < 10 ? 0x30 : 0x57);
    }
    this.length = at + 17;
  }

  /** A string already in UTF-8 (`encoded(text)`), written as `string(text)` would write it. */
  encoded(text: Encoded): void {
    const { bytes: source, length } = text;
    this.varint(length);
    this.reserve(length);
    const bytes = this.bytes;
    const at = this.length;
    for (let i = 0; i < length; i++) bytes[at + i] = source[i]!;
    this.length = at + length;
  }

  clear(): void {
    this.length = 0;
    if (this.home !== null && this.buffer !== this.home) this.use(this.home);
  }
}

/** A string's UTF-8 bytes and their count, for `ByteWriter.encoded`: written often, encoded once. */
export interface Encoded {
  readonly bytes: Uint8Array;
  readonly length: number;
}

export function encoded(text: string): Encoded {
  const bytes = Utf8Encode(text);
  return { bytes, length: TypedArrayLength(bytes) };
}
// Doubles and 64-bit integers reach the bytes through a scratch array of the machine's own order:
// element stores V8 compiles in line, where a DataView method is a call on Node 24 whatever its
// feedback (about 20 ns), and on Node 20 too from a call site whose target it does not know.
const scratch = new ArrayBuffer(8);
const scratchDouble = new Float64Array(scratch);
const scratchBigInt = new BigInt64Array(scratch);
const scratchBytes = new Uint8Array(scratch);
/** Whether this machine stores a number's bytes in the format's order (all Node ships for but s390x). */
scratchDouble[0] = 1;
export const LITTLE_ENDIAN = scratchBytes[7] === 0x3f;

/** `value` as 8 little-endian bytes at `at`, which has room for them. */
export function putFloat64(bytes: Uint8Array, at: number, value: number): void {
  scratchDouble[0] = value;
  putScratch(bytes, at);
}

function putScratch(bytes: Uint8Array, at: number): void {
  if (LITTLE_ENDIAN) {
    bytes[at] = scratchBytes[0]!;
    bytes[at + 1] = scratchBytes[1]!;
    bytes[at + 2] = scratchBytes[2]!;
    bytes[at + 3] = scratchBytes[3]!;
    bytes[at + 4] = scratchBytes[4]!;
    bytes[at + 5] = scratchBytes[5]!;
    bytes[at + 6] = scratchBytes[6]!;
    bytes[at + 7] = scratchBytes[7]!;
  } else {
    for (let i = 0; i < 8; i++) bytes[at + i] = scratchBytes[7 - i]!;
  }
}

/** LEB128 of a value below 2^32 at `at`, which has room for 5 bytes; returns the end. */
export function putVarint32(bytes: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    bytes[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  bytes[at++] = value;
  return at;
}

export function zigzag(value: number): number {
  return value < 0 ? -2 * value - 1 : 2 * value;
}

export function unzigzag(value: number): number {
  return value % 2 === 1 ? -(value + 1) / 2 : value / 2;
}
