import { readSync } from 'node:fs';
import { crc32 } from './crc32.js';
import { TraceError } from './errors.js';
import { CHUNK_HEADER_BYTES, CHUNK_MARK } from './format.js';

/**
 * A chunk that checks out: its payload (a view the next read reuses), its checksum, and where the next chunk
 * starts.
 */
export interface WholeChunk {
  readonly payload: Uint8Array;
  readonly checksum: number;
  readonly next: number;
}

/** Why the bytes at an offset are not a chunk. */
export interface Damage {
  readonly expected: string;
  /** the file stops inside a chunk that began well: a run killed mid-write leaves one, last */
  readonly torn: boolean;
  /** where the chunk ends by its length field, when that is inside the file */
  readonly end: number | null;
}

const BLOCK = 1 << 20;
const SEARCH = 1 << 16;

/** The chunks of a trace file, read by offset: each one checked against its length and checksum. */
export class ChunkFile {
  private readonly head = new Uint8Array(CHUNK_HEADER_BYTES);
  private readonly headView = new DataView(this.head.buffer);
  // One buffer for every chunk: a chunk is decoded whole before the next is read.
  private buffer = new Uint8Array(0);

  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly file: string,
  ) {}

  read(offset: number): WholeChunk | Damage {
    const left = this.size - offset;
    if (left < CHUNK_HEADER_BYTES) {
      readFully(this.fd, this.head.subarray(0, left), offset, this.file);
      return {
        expected: `a chunk header of ${CHUNK_HEADER_BYTES} bytes, found ${left}`,
        torn: this.head[0] === CHUNK_MARK,
        end: null,
      };
    }
    readFully(this.fd, this.head, offset, this.file);
    if (this.head[0] !== CHUNK_MARK)
      return {
        expected: `a chunk marker 0x${CHUNK_MARK.toString(16)}, found 0x${this.head[0]!.toString(16)}`,
        torn: false,
        end: null,
      };
    const length = this.headView.getUint32(1, true);
    const end = offset + CHUNK_HEADER_BYTES + length;
    if (end > this.size)
      return {
        expected: `a chunk of ${length} bytes, found ${left - CHUNK_HEADER_BYTES} before the end of the file`,
        torn: true,
        end: null,
      };
    const checksum = this.headView.getUint32(5, true);
    if (this.buffer.length < length) this.buffer = new Uint8Array(Math.max(length, this.buffer.length * 2));
    const payload = this.buffer.subarray(0, length);
    readFully(this.fd, payload, offset + CHUNK_HEADER_BYTES, this.file);
    if (crc32(payload) !== checksum)
      return { expected: 'a chunk whose checksum matches its payload', torn: false, end };
    return { payload, checksum, next: end };
  }

  /**
   * The first chunk after the damaged one at `offset` that checks out, or null when none does. Where
   * its length field held, the next chunk is where it says; else every chunk marker after `offset`
   * is tried. A candidate counts only when a chunk marker (or the end of the file) follows it: a
   * marker byte inside the damage, with a length that happens to fit, then costs one more byte
   * read rather than a checksum over whatever that length spans.
   */
  resync(offset: number, damage: Damage): number | null {
    if (damage.end !== null && this.checksOut(damage.end)) return damage.end;
    const block = new Uint8Array(SEARCH);
    for (let base = offset + 1; base + CHUNK_HEADER_BYTES <= this.size; base += SEARCH) {
      const bytes = block.subarray(0, Math.min(SEARCH, this.size - base));
      readFully(this.fd, bytes, base, this.file);
      for (let at = bytes.indexOf(CHUNK_MARK); at >= 0; at = bytes.indexOf(CHUNK_MARK, at + 1)) {
        if (this.checksOut(base + at)) return base + at;
      }
    }
    return null;
  }

  private checksOut(offset: number): boolean {
    if (offset + CHUNK_HEADER_BYTES > this.size) return false;
    readFully(this.fd, this.head, offset, this.file);
    const end = offset + CHUNK_HEADER_BYTES + this.headView.getUint32(1, true);
    if (this.head[0] !== CHUNK_MARK || end > this.size) return false;
    if (end < this.size) {
      const after = this.head.subarray(0, 1);
      readFully(this.fd, after, end, this.file);
      if (after[0] !== CHUNK_MARK) return false;
    }
    return 'payload' in this.read(offset);
  }
}

export function readFully(fd: number, into: Uint8Array, position: number, file: string): void {
  let done = 0;
  while (done < into.length) {
    let count: number;
    try {
      count = readSync(fd, into, done, Math.min(into.length - done, BLOCK), position + done);
    } catch (error) {
      throw new TraceError(
        'ERR_TRACE_READ',
        file,
        position + done,
        `expected a readable file: ${(error as Error).message}`,
        { cause: error },
      );
    }
    if (count === 0) break;
    done += count;
  }
}
