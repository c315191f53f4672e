import { bytesToHex } from '../tracer/digest.js';
import { Tag } from '../tracer/format.js';
import type { TraceValue } from '../tracer/reader.js';
import type { Interner } from './load.js';
import type { Slot } from './rows.js';

/**
 * How a row's value sits in its two words: a number or a bigint by its bits, a digest by its two
 * halves, anything else (text, listings, outputs) as an interned string. Values of unique draws
 * (clocks, randoms, digests) are never interned: ten million of them would not fit.
 */
const ValueType = Object.freeze({ none: 0, number: 1, bigint: 2, digest: 3, interned: 4 });

const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
const wide = new BigInt64Array(float.buffer);
const DIGEST = /^[0-9a-f]{16}$/;

/** Puts a value into a slot (ValueType): equal slots are equal values, as `comparable` would tell. */
export function toSlot(value: TraceValue, tag: number, interner: Interner, slot: Slot): void {
  slot.lo = 0;
  slot.hi = 0;
  if (value === null) {
    slot.type = ValueType.none;
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number') float[0] = value;
    else wide[0] = value;
    slot.type = typeof value === 'number' ? ValueType.number : ValueType.bigint;
    slot.lo = words[0]!;
    slot.hi = words[1]!;
  } else if (tag === Tag.digest && typeof value === 'string' && DIGEST.test(value)) {
    slot.type = ValueType.digest;
    slot.hi = parseInt(value.slice(0, 8), 16);
    slot.lo = parseInt(value.slice(8), 16);
  } else {
    slot.type = ValueType.interned;
    slot.lo = interner.id(comparable(value) as string);
  }
}

export function comparable(value: TraceValue): number | string | null {
  if (value === null || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) return bytesToHex(value);
  return JSON.stringify(value);
}
