import type WorkerThreads from 'node:worker_threads';
import { Api } from '../tracer/apis.js';
import {
  ArgAt,
  ArrayBufferIsView,
  ArrayIsArray,
  JSONStringify,
  ObjectHasOwn,
  StringSlice,
  TypedArrayLength,
} from '../tracer/primordials.js';
import { family, type Native } from './patch.js';
import { builtin, loadedThreads, real } from './real.js';
import type { Recorder } from './recorder.js';

/** How much of a message's description the trace keeps as text; the digest covers all of it. */
const HEAD = 64;
/** The most values of one message described: a large one is compared on its start. */
const BUDGET = 256;

/**
 * What a child hands its parent: a forked child's `process.send` and a worker thread's
 * `parentPort.postMessage`, recorded as log events (seen, never compared) before Node sends them.
 * A value drawn in a child reaches its parent's output this way, and the cause search follows it
 * there (diffing/crossing.ts). Other ports (a `MessageChannel` of the program's) are not followed.
 */
export const install = family<Recorder>('messages', (patcher, recorder) => {
  // Around lifecycle.ts's wrapper, which flushes the trace as the child sends: the event is in it.
  const send = real.getOwnPropertyDescriptor(process, 'send');
  if (send && typeof send.value === 'function') patcher.method(process, 'send', sent(recorder, Api.ipcSend, process));
  const threads = loadedThreads();
  if (threads === null || threads.isMainThread) return;
  const port = builtin<typeof WorkerThreads>('node:worker_threads').parentPort;
  if (port) patcher.method(real.getPrototypeOf(port)!, 'postMessage', sent(recorder, Api.portMessage, port));
});

function sent(recorder: Recorder, api: number, receiver: object): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      if (thisArg === receiver && recorder.on) {
        try {
          const text = describe(ArgAt(args, 0));
          recorder.chunk(api, recorder.site(api), text, StringSlice(text, 0, HEAD));
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_OUTPUT', error); // a bug of ours: the message is Node's to send
        }
      }
      return real.apply(target, thisArg, args);
    },
  };
}

/**
 * A message as text, read without running any of the program's code: a getter, a proxy's trap or a
 * `toJSON` would run twice if read here too, so such a value is described by its kind alone (two
 * runs that sent different values through it then look alike: the search misses, never blames).
 */
export function describe(message: unknown): string {
  let budget = BUDGET;
  const seen: object[] = [];
  const walk = (value: unknown): string => {
    if (--budget < 0) return '…';
    if (typeof value === 'string') return JSONStringify(value);
    if (typeof value === 'bigint') return `${value}n`;
    if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
    if (typeof value !== 'object' || value === null) return `${value}`;
    if (real.isProxy(value)) return 'proxy';
    if (real.isDate(value)) return `Date(${real.apply(real.dateGetTime, value, [])})`;
    if (ArrayBufferIsView(value)) return `bytes(${TypedArrayLength(value as Uint8Array)})`;
    for (let i = 0; i < seen.length; i++) if (seen[i] === value) return 'cycle';
    seen[seen.length] = value;
    if (sendsToJSON(value)) return 'toJSON';
    const keys = real.ownKeys(value);
    let text = ArrayIsArray(value) ? '[' : '{';
    for (let i = 0; i < keys.length && budget >= 0; i++) {
      const key = keys[i]!;
      const descriptor = real.getOwnPropertyDescriptor(value, key);
      if (typeof key !== 'string' || descriptor === undefined || !descriptor.enumerable) continue;
      const shown = ObjectHasOwn(descriptor, 'value') ? walk(descriptor.value) : 'getter';
      text += `${JSONStringify(key)}:${shown},`;
    }
    seen.length--;
    return `${text}${ArrayIsArray(value) ? ']' : '}'}`;
  };
  return walk(message);
}

/** Whether `toJSON` is a data property somewhere on the value's chain: JSON would send what it returns. */
function sendsToJSON(value: object): boolean {
  for (let object: object | null = value; object !== null; object = real.getPrototypeOf(object)) {
    if (real.isProxy(object) || real.getOwnPropertyDescriptor(object, 'toJSON') !== undefined) return true;
  }
  return false;
}
