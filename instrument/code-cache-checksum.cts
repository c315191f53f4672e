/**
 * The hook's code-cache files (register.cts): the V8 data after a checksum of it. CommonJS and
 * builtins only: register.cts bundles it, before anything else of the hook loads.
 */

/**
 * A cache file starts with a checksum of the rest: a release V8 checks a cache's header, not its
 * bytes, and runs one whose bytes changed (a torn write, a bad disk) into a crash.
 */
export const CHECKSUM_BYTES = 8;
/**
 * Every CHECKSUM_STRIDE-th 32-bit word of a cache is summed, and all of its last ones: one word in
 * 256 bytes. At 16 the loop ran long enough (2,600 turns for Node 24's cache) that V8 compiled it
 * on the side at every start.
 */
const CHECKSUM_STRIDE = 64;
const ZERO_BLOCK = Buffer.alloc(512);

/**
 * Whether `data` holds 512 zero bytes in a row, which a cache is never used with: what a crash
 * leaves of a block that never reached the disk (the file renamed into place before its data).
 * The sampled checksum misses such a block where the words it samples there were zeros already;
 * V8's own caches hold runs of at most 139 (Node 20 to 24). A native search, a few microseconds.
 */
export function hasZeroBlock(data: Buffer): boolean {
  return data.indexOf(ZERO_BLOCK) !== -1;
}

/**
 * A checksum of a cache in CHECKSUM_BYTES: its length, and two FNV-style sums over a sample of its
 * words. A disk damages a block at a time, hundreds of bytes, which the sample sees unless the
 * damage left its sampled words as they were (a block zeroed where they were zeros: hasZeroBlock
 * catches that); summing every word would cost a sixth of Node's own start-up in code that has not
 * warmed up, and SHA-256 needs node:crypto.
 */
export function checksum(data: Buffer): Buffer {
  const aligned = data.byteOffset % 4 === 0 ? data : Buffer.from(data); // an Int32Array starts at a multiple of 4
  const words = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.length >>> 2);
  const tail = words.length - CHECKSUM_STRIDE; // from here every word
  let a = 0x811c9dc5 ^ data.length;
  let b = data.length;
  // Written out, with no helper closure: this runs before V8 compiles anything, where a closure's
  // writes to the variables it shares cost the loop ten times as much (about 1 ms of each start).
  for (let i = 0; i < words.length; i += i + CHECKSUM_STRIDE <= tail ? CHECKSUM_STRIDE : 1) {
    a = Math.imul(a ^ words[i]!, 0x01000193);
    b = (b + a) | 0;
  }
  for (let i = words.length * 4; i < data.length; i++) {
    a = Math.imul(a ^ data[i]!, 0x01000193);
    b = (b + a) | 0;
  }
  const sum = Buffer.alloc(CHECKSUM_BYTES);
  sum.writeInt32LE(a, 0);
  sum.writeInt32LE(b, 4);
  return sum;
}
