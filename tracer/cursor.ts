import { digestHex } from './digest.js';
import { Tag } from './format.js';
import { Utf8Decode } from './primordials.js';
import type { TraceValue } from './reader.js';

/** Who answers for a chunk's bytes: the reader, which throws ERR_TRACE_CORRUPT with the file's name. */
export interface FailsAt {
  fail(offset: number, expected: string): never;
}

/** The bytes of one chunk, decoded one field after the other; `base` is the chunk's offset in the file. */
export class Cursor {
  pos = 0;
  private readonly view: DataView;

  constructor(
    private readonly bytes: Uint8Array,
    readonly base: number,
    private readonly reader: FailsAt,
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
    if (this.pos + count > this.bytes.length)
      this.reader.fail(this.base + this.pos, `${count} more bytes inside the chunk`);
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
export function presented(tag: number, value: number): TraceValue {
  if (tag === Tag.bigint) return BigInt(value);
  if (tag === Tag.hrtime) return [Math.floor(value / 1e9), value % 1e9];
  return value;
}

/**
 * A cursor over one chunk, with the event a run record repeats: the chunk's last event, and how many of the
 * run's values are left.
 */
export class ChunkCursor extends Cursor {
  runApi = 0;
  /** -1 until the chunk's first event: a run record before it is corrupt */
  runTagByte = -1;
  runCtx = 0;
  runLeft = 0;
}
