/**
 * The 64-bit digest of a value's bytes: the first two words (h1 as `high`, h2 as `low`) of
 * MurmurHash3_x86_128 with seed 0. Sixteen bytes per step with 32-bit multiplies, where FNV-1a
 * (this module's digest up to trace format 2) took a 64-bit multiply per byte: a UUID's digest
 * went from about 350 ns to a few tens. Stable across platforms and Node versions (bytes are read
 * little-endian, whatever the machine), and never the bytes themselves (random bytes can be secrets).
 */

import { putFloat64 } from './format.js';
import {
  bytesOf,
  MathImul,
  Utf8Encode,
  TypedArrayBuffer,
  TypedArrayByteOffset,
  TypedArrayIndexOf,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from './primordials.js';

export interface Digest {
  high: number;
  low: number;
}

export function digestBytes(view: ArrayBufferView, into: Digest = { high: 0, low: 0 }): Digest {
  const bytes = bytesOf(view);
  return murmur(bytes, TypedArrayLength(bytes), into);
}

/**
 * The digest of text as lines: the digest of the bytes with every `\r\n` read as `\n`, so output
 * that joins lines with `os.EOL` digests the same on Windows as on Linux and macOS (platforms/).
 * Binary data is digested the same way: a CR LF in it counts as LF, and the byte length, which
 * outputs record beside the digest, still tells the two apart on one platform.
 */
export function digestLines(view: ArrayBufferView): Digest {
  const bytes = bytesOf(view);
  const total = TypedArrayLength(bytes);
  // a view of a detached buffer has no bytes, and indexOf would throw on it
  const first = total === 0 ? -1 : TypedArrayIndexOf(bytes, 0x0d);
  if (first < 0) return murmur(bytes, total, { high: 0, low: 0 });
  const lines = new Uint8Array(total);
  TypedArraySet(lines, new Uint8Array(TypedArrayBuffer(bytes), TypedArrayByteOffset(bytes), first));
  let length = first;
  for (let i = first; i < total; i++) {
    if (bytes[i] !== 0x0d || bytes[i + 1] !== 0x0a) lines[length++] = bytes[i]!;
  }
  return murmur(lines, length, { high: 0, low: 0 });
}

/** The digest of `value`'s UTF-8 bytes. */
export function digestString(value: string): Digest {
  return digestBytes(Utf8Encode(value));
}

/** digestNumber's buffer: a double's 8 bytes. */
const doubleBytes = new Uint8Array(8);

/**
 * The digest of a number as the 8 little-endian bytes of its double (format.ts putFloat64): what a
 * trace keeps of a number it does not hold (a randomInt draw). Murmur's tail step for two words
 * and its finish, without its loops: a randomInt takes about 50 ns, and the generic path as much.
 */
export function digestNumber(value: number, into: Digest = { high: 0, low: 0 }): Digest {
  putFloat64(doubleBytes, 0, value);
  const h1 = mix(word(doubleBytes, 0), C1, 15, C2);
  return finish(h1, mix(word(doubleBytes, 4), C2, 16, C3), 0, 0, 8, into);
}

/**
 * The digest of `bytes[0, length)`, written into `into` and returned: the recorder keeps one
 * scratch buffer and one Digest, so a draw's digest allocates nothing.
 */
export function digestPrefix(bytes: Uint8Array, length: number, into: Digest): Digest {
  return murmur(bytes, length, into);
}

const C1 = 0x239b961b;
const C2 = 0xab0e9789;
const C3 = 0x38b34ae5;
const C4 = 0xa1e38b93;

function murmur(bytes: Uint8Array, length: number, into: Digest): Digest {
  let h1 = 0;
  let h2 = 0;
  let h3 = 0;
  let h4 = 0;
  const blocks = length & ~15;
  for (let i = 0; i < blocks; i += 16) {
    h1 ^= mix(word(bytes, i), C1, 15, C2);
    h1 = (imul(rotl(h1, 19) + h2, 5) + 0x561ccd1b) | 0;
    h2 ^= mix(word(bytes, i + 4), C2, 16, C3);
    h2 = (imul(rotl(h2, 17) + h3, 5) + 0x0bcaa747) | 0;
    h3 ^= mix(word(bytes, i + 8), C3, 17, C4);
    h3 = (imul(rotl(h3, 15) + h4, 5) + 0x96cd1c35) | 0;
    h4 ^= mix(word(bytes, i + 12), C4, 18, C1);
    h4 = (imul(rotl(h4, 13) + h1, 5) + 0x32ac3b17) | 0;
  }
  // The tail: up to 15 bytes, little-endian into up to four words; a word is mixed when it got one.
  const rest = length - blocks;
  if (rest > 0) {
    let k1 = 0;
    let k2 = 0;
    let k3 = 0;
    let k4 = 0;
    for (let j = 0; j < rest; j++) {
      const byte = bytes[blocks + j]! << ((j & 3) * 8);
      if (j < 4) k1 |= byte;
      else if (j < 8) k2 |= byte;
      else if (j < 12) k3 |= byte;
      else k4 |= byte;
    }
    if (rest > 12) h4 ^= mix(k4, C4, 18, C1);
    if (rest > 8) h3 ^= mix(k3, C3, 17, C4);
    if (rest > 4) h2 ^= mix(k2, C2, 16, C3);
    h1 ^= mix(k1, C1, 15, C2);
  }
  return finish(h1, h2, h3, h4, length, into);
}

function finish(h1: number, h2: number, h3: number, h4: number, length: number, into: Digest): Digest {
  h1 ^= length;
  h2 ^= length;
  h3 ^= length;
  h4 ^= length;
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  h3 = (h3 + h1) | 0;
  h4 = (h4 + h1) | 0;
  h1 = fmix(h1);
  h2 = fmix(h2);
  h3 = fmix(h3);
  h4 = fmix(h4);
  h1 = (h1 + h2 + h3 + h4) | 0;
  h2 = (h2 + h1) | 0;
  into.high = h1 >>> 0;
  into.low = h2 >>> 0;
  return into;
}

const imul = MathImul;

function word(bytes: Uint8Array, i: number): number {
  return bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
}

function rotl(value: number, bits: number): number {
  return (value << bits) | (value >>> (32 - bits));
}

function mix(k: number, first: number, bits: number, second: number): number {
  return imul(rotl(imul(k, first), bits), second);
}

/** MurmurHash3's 32-bit finalizer: every input bit moves every output bit. Signed; `>>> 0` for a word. */
export function fmix(h: number): number {
  h = imul(h ^ (h >>> 16), 0x85ebca6b);
  h = imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * 64 bits as 16 hex digits. By table, a byte at a time: `Number.prototype.toString(16)` takes
 * about half a microsecond, and the hook names every async context it records in this way.
 */
export function digestHex(high: number, low: number): string {
  return hex32(high) + hex32(low);
}

function hex32(value: number): string {
  return HEX[value >>> 24]! + HEX[(value >>> 16) & 0xff]! + HEX[(value >>> 8) & 0xff]! + HEX[value & 0xff]!;
}

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** Raw bytes as hex, how reports and `show` print a held value. */
export function bytesToHex(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0, length = TypedArrayLength(bytes); i < length; i++) text += HEX[bytes[i]!]!;
  return text;
}
