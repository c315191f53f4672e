import type { Sink } from '../tracer/writer.js';
import { TypedArrayLength } from '../tracer/primordials.js';
import { real, withOwnByteLength } from './real.js';

/** `fs.writeSync(fd, bytes, offset, length)`: how many bytes it wrote. */
export type WriteSync = (fd: number, bytes: Uint8Array, offset: number, length: number) => number;

/**
 * The trace file's sink: every chunk written whole, with the saved real `fs.writeSync` (faults.ts
 * hands its `write:N` test fault another). A write to a file may be short (a disk that fills up
 * writes what fits, and the next write fails with ENOSPC), so it loops; a torn last chunk is what
 * the reader reports as truncated.
 */
export function fileSink(fd: number, write: WriteSync = real.writeSync): Sink {
  return {
    write(bytes) {
      const length = TypedArrayLength(bytes);
      withOwnByteLength(bytes, length);
      let done = 0;
      while (done < length) {
        const count = write(fd, bytes, done, length - done);
        if (count <= 0) throw diskFull(); // no progress: never spin
        done += count;
      }
    },
  };
}

export function diskFull(): Error {
  const error = new real.Error('ENOSPC: no space left on device, write') as NodeJS.ErrnoException;
  error.code = 'ENOSPC';
  error.errno = -28;
  error.syscall = 'write';
  return error;
}
