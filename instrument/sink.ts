import { HookError } from '../tracer/errors.js';
import type { Sink } from '../tracer/writer.js';
import { TypedArrayLength } from '../tracer/primordials.js';
import { messageOf, real, withOwnByteLength } from './real.js';

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

/** The trace file's sink as the runtime holds it: its file closed once, whoever asks first. */
export interface TraceSink extends Sink {
  close(): void;
}

/**
 * fileSink, with the file's path in what a failed write says (the CLI tells a full disk from a
 * divergence by it), and closed at the first write after `owner`, the detdrift command that
 * records, is gone: a SIGKILLed check's program runs on, but no longer fills the disk, and the
 * next sweep frees the file. Asked once per chunk, so a live owner costs a syscall per chunk.
 */
export function traceSink(fd: number, file: string, owner: number | null, write?: WriteSync): TraceSink {
  const sink = fileSink(fd, write);
  let open = true;
  const close = () => {
    if (!open) return;
    open = false;
    real.closeSync(fd);
  };
  return {
    write(bytes) {
      if (!open) throw new HookError('ERR_DETDRIFT_WRITE', `${file}: the trace is closed`);
      if (owner !== null && !isRunning(owner)) {
        close();
        throw new HookError(
          'ERR_DETDRIFT_WRITE',
          `${file}: the detdrift command recording it (pid ${owner}) is gone: trace closed`,
        );
      }
      try {
        sink.write(bytes);
      } catch (error) {
        throw new HookError('ERR_DETDRIFT_WRITE', `${file}: ${messageOf(error)}`, { cause: error });
      }
    },
    close,
  };
}

function isRunning(pid: number): boolean {
  try {
    real.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, someone else's
    return (error as { code?: unknown } | null)?.code !== 'ESRCH';
  }
}

export function diskFull(): Error {
  const error = new real.Error('ENOSPC: no space left on device, write') as NodeJS.ErrnoException;
  error.code = 'ENOSPC';
  error.errno = -28;
  error.syscall = 'write';
  return error;
}
