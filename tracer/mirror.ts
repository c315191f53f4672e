/**
 * A worker's open chunk, in memory its parent can read. `worker.terminate()` runs no JavaScript in
 * the worker (no `exit` listener, no `finally`), so the events it recorded since its last written
 * chunk are in this memory alone: the parent's hook writes them into the worker's trace once the
 * thread has stopped (instrument/workers.ts). MirroredWriter (mirrored-writer.ts) keeps the words
 * below true at every point the worker can be stopped at; `pendingChunk` reads them back.
 *
 * The words, in `state`: the trace file's length as the worker wrote it (a double), whether the
 * mirror is armed, the open chunk's length up to its last whole record, and its open run (where
 * its count goes, how many events, and the tag byte of a run of staged doubles, or -1); then the
 * trace file's path as UTF-8.
 */
import { types } from 'node:util';
import { MAX_RUN, ByteWriter, CHUNK_HEADER_BYTES } from './format.js';
import { appendDoubles, sealChunk } from './writer.js';
import {
  Float64Array,
  Int32Array,
  SharedArrayBuffer,
  Utf8EncodeInto,
  Utf8Length,
  Utf8Decode,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from './primordials.js';

export interface ChunkMirror {
  /** the words and the path */
  readonly state: SharedArrayBuffer;
  /** the chunk's bytes: room for a whole chunk (the writer writes one at a megabyte) and its last record */
  readonly out: SharedArrayBuffer;
  /** the open run's doubles, which go into the chunk when the run ends */
  readonly staged: SharedArrayBuffer;
}

/** Int32 indexes in `state`; the double at index 0 (bytes 0 to 7) is the file's length. */
export const Word = Object.freeze({ armed: 2, committed: 3, runAt: 4, runLength: 5, runDoubles: 6, pathLength: 7 });
const PATH_AT = 32;
const PATH_BYTES = 4096;
const OUT_BYTES = 1 << 21;
const ARMED = 1;
/** the parent took what was pending: nothing more to write */
const TAKEN = 2;
/**
 * The longest run whose count goes in front of its values (not staged doubles) in a mirrored
 * chunk: its count is one byte, written over in place when the run ends, so no byte before the
 * last whole record ever moves.
 */
export const IN_PLACE_RUN = 0x7f;

export function createMirror(): ChunkMirror {
  return {
    state: new SharedArrayBuffer(PATH_AT + PATH_BYTES),
    out: new SharedArrayBuffer(OUT_BYTES),
    staged: new SharedArrayBuffer(MAX_RUN * 8),
  };
}

/** Whether `value` is a mirror as createMirror makes them: environment data can come from anywhere. */
export function isMirror(value: unknown): value is ChunkMirror {
  if (typeof value !== 'object' || value === null) return false;
  const { state, out, staged } = value as Partial<ChunkMirror>;
  return sized(state, PATH_AT + PATH_BYTES) && sized(out, OUT_BYTES) && sized(staged, MAX_RUN * 8);
}

function sized(buffer: unknown, bytes: number): boolean {
  return isSharedArrayBuffer(buffer) && TypedArrayLength(new Uint8Array(buffer)) === bytes;
}

/** Tells the parent where the trace is, once its header is written; false for a path too long to hold. */
export function arm(mirror: ChunkMirror, path: string): boolean {
  if (Utf8Length(path) > PATH_BYTES) return false;
  const written = Utf8EncodeInto(path, new Uint8Array(mirror.state, PATH_AT, PATH_BYTES));
  const words = new Int32Array(mirror.state);
  words[Word.pathLength] = written;
  words[Word.armed] = ARMED;
  return true;
}

/** The worker closed its trace itself (or never made one): the parent leaves the file alone. */
export function disarm(mirror: ChunkMirror): void {
  new Int32Array(mirror.state)[Word.armed] = 0;
}

export interface Pending {
  readonly path: string;
  /** where the chunk goes: the file's length as the worker last wrote it */
  readonly position: number;
  /** the chunk, sealed; null when every event is in the file already */
  readonly chunk: Uint8Array | null;
}

/**
 * What the worker left, once, or null when the mirror is not armed (or was taken). Read only once
 * the worker stopped: the parent's copy is then exactly what the worker published last.
 */
export function takePending(mirror: ChunkMirror): Pending | null {
  const words = new Int32Array(mirror.state);
  if (words[Word.armed] !== ARMED) return null;
  words[Word.armed] = TAKEN;
  const path = Utf8Decode(new Uint8Array(mirror.state, PATH_AT, words[Word.pathLength]!));
  return { path, position: new Float64Array(mirror.state, 0, 1)[0]!, chunk: pendingChunk(mirror, words) };
}

/**
 * The chunk the worker was building, as its writer would have written it: the bytes up to the
 * last whole record, with the open run ended (its count in front of its staged doubles, or written
 * over its one-byte count). Words that make no sense (never published) give nothing.
 */
function pendingChunk(mirror: ChunkMirror, words: Int32Array): Uint8Array | null {
  const committed = words[Word.committed]!;
  const runAt = words[Word.runAt]!;
  const runLength = words[Word.runLength]!;
  if (committed <= CHUNK_HEADER_BYTES || committed > OUT_BYTES) return null;
  const out = new ByteWriter(committed + 16);
  TypedArraySet(out.bytes, new Uint8Array(mirror.out, 0, committed));
  out.length = committed;
  if (runAt < 0) return sealChunk(out);
  // a run of doubles has nothing after its run byte yet; another has its count byte and values
  const doubles = words[Word.runDoubles]! >= 0;
  if (doubles ? runAt !== committed : runAt >= committed) return null;
  if (runLength < 1 || runLength > (doubles ? MAX_RUN : IN_PLACE_RUN)) return null;
  if (doubles) appendDoubles(out, new Float64Array(mirror.staged), runLength, null);
  else out.bytes[runAt] = runLength;
  return sealChunk(out);
}

const { isSharedArrayBuffer } = types;
