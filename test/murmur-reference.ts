/**
 * MurmurHash3_x86_128 (seed 0) as smhasher's MurmurHash3.cpp writes it, in BigInt arithmetic modulo
 * 2^32 and without sharing a line with tracer/digest.ts, so that a bug there shows in the tests.
 * Returns the digest the traces hold: h1 and h2 as 16 hex digits.
 */
export function murmurReference(bytes: Uint8Array): string {
  const M = 0xffffffffn;
  const mul = (a: bigint, b: bigint) => (a * b) & M;
  const rotl = (x: bigint, r: bigint) => ((x << r) | (x >> (32n - r))) & M;
  const fmix = (h: bigint) => {
    h ^= h >> 16n;
    h = mul(h, 0x85ebca6bn);
    h ^= h >> 13n;
    h = mul(h, 0xc2b2ae35n);
    return h ^ (h >> 16n);
  };
  const c = [0x239b961bn, 0xab0e9789n, 0x38b34ae5n, 0xa1e38b93n];
  const rotations = [15n, 16n, 17n, 18n];
  const mixK = (k: bigint, lane: number) => mul(rotl(mul(k, c[lane]!), rotations[lane]!), c[(lane + 1) % 4]!);
  const h = [0n, 0n, 0n, 0n];
  const hRot = [19n, 17n, 15n, 13n];
  const hAdd = [0x561ccd1bn, 0x0bcaa747n, 0x96cd1c35n, 0x32ac3b17n];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const blocks = Math.floor(bytes.length / 16);
  for (let block = 0; block < blocks; block++) {
    for (let lane = 0; lane < 4; lane++) {
      h[lane] = h[lane]! ^ mixK(BigInt(view.getUint32(block * 16 + lane * 4, true)), lane);
      h[lane] = (mul(rotl(h[lane]!, hRot[lane]!) + h[(lane + 1) % 4]!, 5n) + hAdd[lane]!) & M;
    }
  }
  const tail = bytes.subarray(blocks * 16);
  for (let lane = 3; lane >= 0; lane--) {
    if (tail.length <= lane * 4) continue;
    let k = 0n;
    for (let j = Math.min(tail.length, lane * 4 + 4) - 1; j >= lane * 4; j--) k = (k << 8n) | BigInt(tail[j]!);
    h[lane] = h[lane]! ^ mixK(k, lane);
  }
  const length = BigInt(bytes.length);
  for (let lane = 0; lane < 4; lane++) h[lane] = h[lane]! ^ length;
  h[0] = (h[0]! + h[1]! + h[2]! + h[3]!) & M;
  for (let lane = 1; lane < 4; lane++) h[lane] = (h[lane]! + h[0]!) & M;
  for (let lane = 0; lane < 4; lane++) h[lane] = fmix(h[lane]!);
  h[0] = (h[0]! + h[1]! + h[2]! + h[3]!) & M;
  h[1] = (h[1]! + h[0]!) & M;
  return h[0].toString(16).padStart(8, '0') + h[1].toString(16).padStart(8, '0');
}
