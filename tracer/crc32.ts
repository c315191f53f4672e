/**
 * CRC-32 (IEEE 802.3). A chunk of events is checksummed with zlib's native crc32, three to four
 * times faster than JavaScript can; zlib is loaded at the first chunk of that size, not at
 * start-up, so a short traced program never pays the milliseconds loading it costs. Smaller
 * inputs, and a Node without zlib.crc32, take the table below, slicing by 8: eight table lookups
 * per eight bytes instead of a dependent lookup per byte. Both give the same value.
 */

import { TypedArrayBuffer, TypedArrayByteOffset, TypedArrayLength, Uint8Array } from './primordials.js';

/** The size from which zlib's crc32 is worth loading zlib for. */
const NATIVE_FROM = 16 * 1024;

// Taken when this module loads, before a traced program can replace them.
const getBuiltinModule = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
const apply = Reflect.apply;
let native: ((bytes: Uint8Array) => number) | null | undefined;

/**
 * zlib's crc32, if it gives the table's value for the start of `bytes` (the input that asked for
 * it): a replacement a program installed before the first big chunk, and that answers otherwise,
 * is not used again. A short start: the table's code is not optimized yet, and 64 KiB through it
 * would cost milliseconds.
 */
function loadNative(bytes: Uint8Array): ((bytes: Uint8Array) => number) | null {
  try {
    const zlib = (getBuiltinModule && apply(getBuiltinModule, process, ['node:zlib'])) as
      | { crc32?: (bytes: Uint8Array) => number }
      | undefined;
    const crc32 = zlib?.crc32;
    const start = new Uint8Array(TypedArrayBuffer(bytes), TypedArrayByteOffset(bytes), 64);
    return typeof crc32 === 'function' && crc32(start) === crc32Table(start) ? crc32 : null;
  } catch {
    return null; // a Node that refuses: the table serves
  }
}

// Built from each table's eight one-bit entries: a CRC table is linear (the entry of a XOR b is the
// XOR of theirs), so every other entry is one XOR of two already made. About 2,000 steps where the
// bit-by-bit way takes 4,000, which made V8 compile this loop on the side at every start.
const TABLES = (() => {
  const tables = new Int32Array(8 * 256);
  for (let bit = 1; bit < 256; bit <<= 1) {
    let c = bit;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[bit] = c;
  }
  for (let k = 0; k < 8; k++) {
    const at = k * 256;
    // table k gives the CRC of a byte followed by k zero bytes
    if (k > 0)
      for (let bit = 1; bit < 256; bit <<= 1)
        tables[at + bit] = tables[tables[at - 256 + bit]! & 0xff]! ^ (tables[at - 256 + bit]! >>> 8);
    for (let n = 3; n < 256; n++)
      if (n & (n - 1)) tables[at + n] = tables[at + (n & (n - 1))]! ^ tables[at + (n & -n)]!;
  }
  return tables;
})();

export function crc32(bytes: Uint8Array): number {
  if (TypedArrayLength(bytes) >= NATIVE_FROM) {
    if (native === undefined) native = loadNative(bytes);
    if (native !== null) return native(bytes);
  }
  return crc32Table(bytes);
}

export function crc32Table(bytes: Uint8Array): number {
  const t = TABLES;
  let crc = -1;
  let i = 0;
  const length = TypedArrayLength(bytes);
  for (const whole = length - (length % 8); i < whole; i += 8) {
    const low = crc ^ (bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    crc =
      t[0x700 + (low & 0xff)]! ^
      t[0x600 + ((low >>> 8) & 0xff)]! ^
      t[0x500 + ((low >>> 16) & 0xff)]! ^
      t[0x400 + (low >>> 24)]! ^
      t[0x300 + bytes[i + 4]!]! ^
      t[0x200 + bytes[i + 5]!]! ^
      t[0x100 + bytes[i + 6]!]! ^
      t[bytes[i + 7]!]!;
  }
  for (; i < length; i++) crc = t[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}
