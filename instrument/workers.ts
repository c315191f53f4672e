import { takePending, type ChunkMirror } from '../tracer/mirror.js';
import { Int32Array, SharedArrayBuffer, TypedArrayLength } from '../tracer/primordials.js';
import type { Native } from './patch.js';
import { messageOf, real, withOwnByteLength } from './real.js';

/**
 * The parent's side of a worker's mirror (tracer/mirror.ts): what a worker recorded since its
 * last written chunk is written into its trace here, once the worker has stopped, however it
 * stopped. `worker.terminate()` (worker pools end their workers so) runs no JavaScript in the
 * worker, and a natural end or `process.exit()` there leaves nothing pending.
 *
 * The moment a worker has stopped is its native handle's `onexit` callback, which Node calls
 * before the Worker emits 'exit': wrapped here, it adds no listener the program could count and
 * finishes the trace before the program hears of the end. The handle is found by its symbol's
 * name, as every Node from 20 to 24 keeps it; where it is not found, the worker's trace keeps
 * what the worker wrote itself, as before.
 */
interface Watched {
  readonly mirror: ChunkMirror;
  readonly handle: object;
  /** the handle's `stopThread` and `loopIdleTime` */
  readonly stop: Native;
  readonly idleTime: Native;
}

/** Workers that have not stopped yet, for this thread's own exit. */
const running: Watched[] = [];
let handleKey: symbol | null = null;
const describe = real.getOwnPropertyDescriptor(Symbol.prototype, 'description')!.get!;

/** Watches a Worker this thread just made for its end; its hook, if it runs, fills `mirror`. */
export function watchWorker(worker: object, mirror: ChunkMirror): void {
  const handle = nativeHandle(worker);
  const methods = handle && (real.getPrototypeOf(handle) as object);
  const onexit = handle && valueOf(handle, 'onexit');
  const stop = methods && valueOf(methods, 'stopThread');
  const idleTime = methods && valueOf(methods, 'loopIdleTime');
  if (!handle || typeof onexit !== 'function' || typeof stop !== 'function' || typeof idleTime !== 'function') return;
  const watched: Watched = { mirror, handle, stop: stop as Native, idleTime: idleTime as Native };
  running[running.length] = watched;
  const ended = function (this: unknown): unknown {
    forget(watched);
    save(mirror);
    return real.apply(onexit as Native, this, arguments);
  };
  real.defineProperty(handle, 'onexit', { value: ended, writable: true, enumerable: true, configurable: true });
}

/**
 * At this thread's exit (process.exit, or its end with unref'd workers still running), once its
 * last `exit` listener ran, Node stops its workers and waits for them, and no JavaScript hears of
 * it: each worker still running is stopped here instead, and what it left is written once its
 * thread is done. A handle's
 * `loopIdleTime()` says so: it is -1 once the worker's environment is gone, which its thread
 * marks under the lock `loopIdleTime` takes, after its last JavaScript ran. Node would wait as long
 * for the thread; a worker that takes longer than STOP_POLLS keeps the chunks it wrote itself.
 */
export function saveRunningWorkers(): void {
  try {
    // Every one, a worker still starting up too: its hook may arm its mirror any moment until it stops.
    const stopping: Watched[] = [];
    for (let i = 0; i < running.length; i++) {
      stopping[i] = running[i]!;
      real.apply(running[i]!.stop, running[i]!.handle, []);
    }
    running.length = 0;
    for (let poll = 0; stopping.length > 0 && poll < STOP_POLLS; poll++) {
      for (let i = stopping.length - 1; i >= 0; i--) {
        if (real.apply(stopping[i]!.idleTime, stopping[i]!.handle, []) !== -1) continue;
        save(stopping[i]!.mirror);
        stopping[i] = stopping[stopping.length - 1]!;
        stopping.length--;
      }
      if (stopping.length > 0) real.atomicsWait(sleeper(), 0, 0, POLL_MS);
    }
  } catch (error) {
    report(`cannot stop this thread's workers: ${messageOf(error)} (their traces keep the chunks they wrote)`);
  }
}

/** Writes the worker's pending chunk where its file ends, and cuts off anything after it. */
function save(mirror: ChunkMirror): void {
  let fd = -1;
  let path = '';
  try {
    const pending = takePending(mirror);
    if (pending === null || pending.chunk === null) return;
    const { position, chunk } = pending;
    path = pending.path;
    fd = real.openSync(path, 'r+');
    const length = TypedArrayLength(chunk);
    withOwnByteLength(chunk, length);
    for (let done = 0; done < length; ) {
      const count = real.writeSync(fd, chunk, done, length - done, position + done);
      if (count <= 0) throw new real.Error('the file takes no more bytes');
      done += count;
    }
    real.ftruncateSync(fd, position + length);
  } catch (error) {
    const message = `cannot finish the trace ${path} of a stopped worker: ${messageOf(error)}`;
    report(`${message} (it keeps the chunks the worker wrote)`);
  } finally {
    if (fd >= 0) real.closeSync(fd);
  }
}

/** One line on stderr, as the recorder says its own failures. */
function report(message: string): void {
  try {
    real.writeSync(real.stderrFd, `detdrift: ERR_DETDRIFT_WRITE: ${message}\n`);
  } catch {
    // stderr is gone: nothing left to tell
  }
}

/** How long a poll waits, in milliseconds, and how many polls at most (about a second). */
const POLL_MS = 0.2;
const STOP_POLLS = 5000;
let sleeping: Int32Array | null = null;

function sleeper(): Int32Array {
  return (sleeping ??= new Int32Array(new SharedArrayBuffer(4)));
}

function forget(watched: Watched): void {
  for (let i = 0; i < running.length; i++) {
    if (running[i] !== watched) continue;
    running[i] = running[running.length - 1]!;
    running.length--;
    return;
  }
}

/** The Worker's native handle: the value of its own symbol named `kHandle`, read without a getter. */
function nativeHandle(worker: object): object | null {
  if (handleKey === null) {
    const keys = real.ownKeys(worker);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (typeof key === 'symbol' && real.apply(describe, key, []) === 'kHandle') handleKey = key;
    }
  }
  const handle = handleKey === null ? null : valueOf(worker, handleKey);
  return typeof handle === 'object' ? handle : null;
}

function valueOf(target: object, key: PropertyKey): unknown {
  return real.getOwnPropertyDescriptor(target, key)?.value;
}
