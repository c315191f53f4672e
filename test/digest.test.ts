import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestBytes, digestHex, digestString } from '../tracer/digest.js';

/** FNV-1a 64 written the obvious way, with BigInt: the reference the fast 32-bit halves must match. */
function reference(bytes: Uint8Array): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of bytes) hash = ((hash ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return hash.toString(16).padStart(16, '0');
}

function hex(view: ArrayBufferView): string {
  const { high, low } = digestBytes(view);
  return digestHex(high, low);
}

/** A seeded generator (mulberry32), so a failure names an input that reproduces. */
function generator(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('published FNV-1a 64 test vectors', () => {
  const text = (value: string) => new TextEncoder().encode(value);
  assert.equal(hex(text('')), 'cbf29ce484222325');
  assert.equal(hex(text('a')), 'af63dc4c8601ec8c');
  assert.equal(hex(text('foobar')), '85944171f73967e8');
});

test('digestBytes equals the BigInt reference on random inputs', () => {
  const next = generator(42);
  for (let round = 0; round < 2000; round++) {
    const bytes = new Uint8Array(Math.floor(next() * 300));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
    assert.equal(hex(bytes), reference(bytes), `round ${round}: ${Buffer.from(bytes).toString('hex')}`);
  }
});

test('regression: every byte value after every high-bit state (a signed low half lost its carry)', () => {
  for (let byte = 0; byte < 256; byte++) {
    const bytes = new Uint8Array([0xff, byte, 0x80, byte ^ 0x55]);
    assert.equal(hex(bytes), reference(bytes), `byte ${byte}`);
  }
});

test('a view digests only the bytes it covers, and a string digests its UTF-8 bytes', () => {
  const buffer = new Uint8Array(64).map((_value, index) => index * 7);
  const view = new DataView(buffer.buffer, 5, 17);
  assert.equal(hex(view), reference(buffer.subarray(5, 22)));
  assert.equal(hex(new Uint32Array(buffer.buffer, 8, 3)), reference(buffer.subarray(8, 20)));
  const { high, low } = digestString('é 😀');
  assert.equal(digestHex(high, low), reference(new TextEncoder().encode('é 😀')));
});
