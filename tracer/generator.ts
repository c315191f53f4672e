import { bytesToHex, digestString } from './digest.js';
import {
  Int32Array,
  MathFloor,
  MathImul,
  StringSlice,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from './primordials.js';

/**
 * Control mode's generators, shared by the hook (instrument/control.ts draws from them) and the
 * trace (tracer/derive.ts runs them again in trace order, so a value that follows from the seed
 * need not be stored). Both sides must draw exactly alike: this module is the one definition.
 */

/** The virtual clock's epoch: 2024-01-01T00:00:00Z, the same in every run and on every machine. */
export const VIRTUAL_EPOCH_MS = 1_704_067_200_000;
/** How far one clock read moves the virtual clock: reads are distinct, and elapsed time is a count of reads. */
export const CLOCK_STEP_NS = 1_000_000;

/** The virtual wall clock in milliseconds at `nanoseconds` since the virtual start, as Date.now gives. */
export function wallMs(nanoseconds: number): number {
  return VIRTUAL_EPOCH_MS + MathFloor(nanoseconds / 1e6);
}

/**
 * xoshiro128** (Blackman and Vigna), seeded through SplitMix32 from the digest (digest.ts) of the seed and
 * the stream's name. Small, fast, well studied, and the same sequence on every platform.
 */
export class Stream {
  /**
   * The four words of state, as int32: the same bits as unsigned words under every operation here,
   * and kept in a typed array so V8 never boxes a word above 2^30 on the draw path.
   */
  private readonly state = new Int32Array(4);

  constructor(seed: string, name: string) {
    const { high, low } = digestString(`${seed}\u0000${name}`);
    let state = (high ^ MathImul(low, 0x9e3779b9)) >>> 0;
    const splitmix = () => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = MathImul(z ^ (z >>> 16), 0x85ebca6b);
      z = MathImul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.state[0] = splitmix();
    this.state[1] = splitmix();
    this.state[2] = splitmix();
    this.state[3] = splitmix() || 1;
  }

  /** An independent stream at this one's position. */
  copy(): Stream {
    const copy = new Stream('', '');
    TypedArraySet(copy.state, this.state);
    return copy;
  }

  /** 32 random bits. */
  next(): number {
    const s = this.state;
    const a = s[0]!;
    const b = s[1]!;
    const result = MathImul(rotl(MathImul(b, 5), 7), 9) >>> 0;
    const c = s[2]! ^ a;
    const d = s[3]! ^ b;
    s[1] = b ^ c;
    s[0] = a ^ d;
    s[2] = c ^ (b << 9);
    s[3] = rotl(d, 11);
    return result;
  }

  /** A double in [0, 1) with 53 random bits, as Math.random gives. */
  double(): number {
    return ((this.next() >>> 5) * 0x4000000 + (this.next() >>> 6)) / 0x20000000000000;
  }

  fill(bytes: Uint8Array): void {
    const length = TypedArrayLength(bytes);
    for (let i = 0; i < length; i += 4) {
      let word = this.next();
      // biome-ignore lint/complexity/useMathMinMax: the program may have replaced Math.min
      const end = i + 4 < length ? i + 4 : length;
      for (let j = i; j < end; j++) {
        bytes[j] = word & 0xff;
        word >>>= 8;
      }
    }
  }

  /** An integer in [min, max), unbiased (rejection sampling on 48 bits, crypto.randomInt's range limit). */
  int(min: number, max: number): number {
    const range = max - min;
    const limit = 0x1000000000000 - (0x1000000000000 % range);
    for (;;) {
      const draw = (this.next() >>> 8) * 0x1000000 + (this.next() >>> 8);
      if (draw < limit) return min + (draw % range);
    }
  }

  /** A version 4 UUID from 16 drawn bytes. */
  uuid(): string {
    const bytes = new Uint8Array(16);
    this.fill(bytes);
    bytes[6] = (bytes[6]! & 0x0f) | 0x40;
    bytes[8] = (bytes[8]! & 0x3f) | 0x80;
    const hex = bytesToHex(bytes);
    return `${StringSlice(hex, 0, 8)}-${StringSlice(hex, 8, 12)}-${StringSlice(hex, 12, 16)}-${StringSlice(hex, 16, 20)}-${StringSlice(hex, 20)}`;
  }
}

function rotl(value: number, bits: number): number {
  return ((value << bits) | (value >>> (32 - bits))) >>> 0;
}
