import type { Sink } from '../tracer/writer.js';
import { MathMin, TypedArrayLength } from '../tracer/primordials.js';
import { real, withOwnByteLength } from './real.js';

/**
 * The trace file's sink: every chunk written whole, with the saved real `fs.writeSync`. A write to
 * a file may be short (a disk that fills up writes what fits, and the next write fails with
 * ENOSPC), so it loops; a torn last chunk is what the reader reports as truncated. `limit` is the
 * `write:N` test fault (faults.ts): the file takes that many bytes, then fails as a full disk does.
 */
export function fileSink(fd: number, limit: number | null = null): Sink {
  let room = limit ?? Infinity;
  return {
    write(bytes) {
      const length = TypedArrayLength(bytes);
      withOwnByteLength(bytes, length);
      let done = 0;
      while (done < length) {
        if (room <= 0) throw diskFull();
        const count = real.writeSync(fd, bytes, done, MathMin(length - done, room));
        if (count <= 0) throw diskFull(); // no progress: never spin
        done += count;
        room -= count;
      }
    },
  };
}

function diskFull(): Error {
  const error = new real.Error('ENOSPC: no space left on device, write') as NodeJS.ErrnoException;
  error.code = 'ENOSPC';
  error.errno = -28;
  error.syscall = 'write';
  return error;
}
