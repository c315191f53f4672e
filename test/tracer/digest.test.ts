import assert from 'node:assert/strict';
import { test } from 'node:test';
import { digestBytes, digestHex, digestLines, digestPrefix, digestString } from '../../tracer/digest.js';
import { murmurReference as reference } from '../murmur-reference.js';

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

test('MurmurHash3_x86_128 vectors, first 64 bits (as another implementation of it gives them)', () => {
  const text = (value: string) => new TextEncoder().encode(value);
  assert.equal(hex(text('')), '0000000000000000');
  assert.equal(hex(text('a')), 'a794933c5556b01b');
  assert.equal(hex(text('foobar')), '2432f512fc5ca9fa');
  assert.equal(hex(text('The quick brown fox jumps over the lazy dog')), '2f1583c3ecee2c67');
  assert.equal(hex(text('0123456789abcdef0')), '1f8a385560920c06');
  assert.equal(hex(text('123e4567-e89b-12d3-a456-426614174000')), 'da9a495065af0cda');
});

test('digestBytes equals the BigInt reference on random inputs', () => {
  const next = generator(42);
  for (let round = 0; round < 2000; round++) {
    const bytes = new Uint8Array(Math.floor(next() * 300));
    for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(next() * 256);
    assert.equal(hex(bytes), reference(bytes), `round ${round}: ${Buffer.from(bytes).toString('hex')}`);
  }
});

test('every byte value in every position of a block and of each tail length (signed words, sums past 2^32)', () => {
  for (let length = 1; length <= 32; length++) {
    for (let byte = 0; byte < 256; byte += 15) {
      const bytes = new Uint8Array(length).fill(0xff);
      bytes[byte % length] = byte;
      assert.equal(hex(bytes), reference(bytes), `length ${length}, byte ${byte}`);
    }
  }
});

test('digestPrefix digests the first bytes of a scratch buffer into the Digest it is given', () => {
  const scratch = new Uint8Array(64).fill(7);
  const into = { high: 0, low: 0 };
  assert.equal(digestPrefix(scratch, 20, into), into);
  assert.equal(digestHex(into.high, into.low), reference(scratch.subarray(0, 20)));
});

test('digestLines reads each \\r\\n as \\n, wherever it falls, and keeps a lone \\r', () => {
  const next = generator(7);
  for (let round = 0; round < 300; round++) {
    const bytes = new Uint8Array(Math.floor(next() * 60)).map(() => [0x0d, 0x0a, 0x61][Math.floor(next() * 3)]!);
    const lines = Buffer.from(Buffer.from(bytes).toString('latin1').replaceAll('\r\n', '\n'), 'latin1');
    const { high, low } = digestLines(bytes);
    assert.equal(digestHex(high, low), reference(lines), `round ${round}: ${Buffer.from(bytes).toString('hex')}`);
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
