/**
 * FNV-1a, 64 bits, computed in two 32-bit halves: cheap enough for the hot path, stable across
 * platforms and Node versions, and never the bytes themselves (random bytes can be secrets).
 */

const PRIME_LOW = 0x1b3;
const OFFSET_HIGH = 0xcbf29ce4;
const OFFSET_LOW = 0x84222325;

export interface Digest {
  high: number;
  low: number;
}

export function digestBytes(view: ArrayBufferView): Digest {
  return fnv1a(view, false);
}

/**
 * The digest of text as lines: FNV-1a over the bytes with every `\r\n` read as `\n`, so output
 * that joins lines with `os.EOL` digests the same on Windows as on Linux and macOS (platforms/).
 * Binary data is digested the same way: a CR LF in it counts as LF, and the byte length, which
 * outputs record beside the digest, still tells the two apart on one platform.
 */
export function digestLines(view: ArrayBufferView): Digest {
  return fnv1a(view, true);
}

function fnv1a(view: ArrayBufferView, crlfAsLf: boolean): Digest {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let high = OFFSET_HIGH;
  let low = OFFSET_LOW;
  for (let i = 0; i < bytes.length; i++) {
    if (crlfAsLf && bytes[i] === 0x0d && bytes[i + 1] === 0x0a) continue;
    // `>>> 0`: a bare `^=` yields a signed int32, and a negative `low` would lose the carry below.
    low = (low ^ bytes[i]!) >>> 0;
    // (high:low) * 0x100000001b3, keeping 64 bits: the 2^40 part only touches the high half.
    const lowProduct = low * PRIME_LOW;
    const carry = Math.floor(lowProduct / 0x100000000);
    high = (Math.imul(high, PRIME_LOW) + Math.imul(low, 0x100) + carry) >>> 0;
    low = lowProduct >>> 0;
  }
  return { high, low };
}

export function digestString(value: string): Digest {
  return digestBytes(encoder.encode(value));
}

export function digestHex(high: number, low: number): string {
  return high.toString(16).padStart(8, '0') + low.toString(16).padStart(8, '0');
}

/** Raw bytes as hex, how reports and `show` print a held value. */
export function bytesToHex(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += byte.toString(16).padStart(2, '0');
  return text;
}

const encoder = new TextEncoder();
