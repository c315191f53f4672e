import type cryptoTypes from 'node:crypto';
import { Api } from '../tracer/apis.js';
import { CONTROLLED, REPLAYED, Tag } from '../tracer/format.js';
import {
  ArgAt,
  ArrayBufferIsView,
  ArrayCopy,
  bytesOf,
  FunctionHasInstance,
  TypedArrayLength,
  TypedArraySet,
  Uint8Array,
} from '../tracer/primordials.js';
import { family, wrapPlain, type Call, type Native, type Patcher } from './patch.js';
import { builtin, callerFile, dataValue, real } from './real.js';
import type { Draws } from './control.js';
import * as substitutes from './crypto-control.js';
import { patchKeyGeneration } from './crypto-keys.js';
import type { Substitute } from './crypto-control.js';
import type { Recorder } from './recorder.js';

/**
 * The crypto family: node:crypto's module functions and the Web Crypto methods on
 * `Crypto.prototype` (`globalThis.crypto` and `crypto.webcrypto` are one object).
 *
 * Values: bytes, UUIDs and integers become a digest of what the program got, never the value
 * (it can be a secret), unless the trace holds values for replay: then `randomInt` records the
 * integer as an f64 (ranges may be negative, which a uint cannot hold, and every safe integer is
 * exact in a double), and its digest is that of the f64's bytes (tracer/digest.ts digestNumber).
 * A callback form records at call time, with the
 * call's site, how much it asked for (Tag.uint): `randomBytes` its size, `randomFill` the byte
 * length of the buffer it was handed (Node's offset and size rules differ by element size, so they
 * are not re-derived here), `randomInt` the size of its range (max - min).
 */
export const install = family<Recorder>('crypto', (patcher, recorder) => {
  // loaded here, not when the hook starts: the family may wait for the program's first load of it
  const cryptoModule = builtin<typeof cryptoTypes>('node:crypto');
  const control = recorder.controller;
  flags = control ? CONTROLLED : 0;
  const substitute = (api: string, make: (stream: Draws) => Substitute) =>
    control ? make(control.stream(api)) : undefined;
  const uuid = substitute('crypto.randomUUID', substitutes.uuid);
  patcher.method(cryptoModule, 'randomUUID', observe(recorder, digestOf(Api.randomUUID), uuid));
  const randomBytes = patcher.method(
    cryptoModule,
    'randomBytes',
    observe(recorder, recordRandomBytes, substitute('crypto.randomBytes', substitutes.randomBytes)),
  );
  patcher.method(
    cryptoModule,
    'randomFill',
    observe(recorder, recordRandomFill, substitute('crypto.randomFill', substitutes.randomFill)),
  );
  patcher.method(
    cryptoModule,
    'randomFillSync',
    observe(recorder, digestOf(Api.randomFillSync), substitute('crypto.randomFillSync', substitutes.fillSync)),
  );
  patcher.method(
    cryptoModule,
    'randomInt',
    observe(recorder, recordRandomInt, substitute('crypto.randomInt', substitutes.randomInt)),
  );
  // The module's getRandomValues is a non-configurable getter whose function calls this method.
  const web = real.getPrototypeOf(cryptoModule.webcrypto) as object;
  patcher.method(web, 'randomUUID', observe(recorder, digestOf(Api.randomUUIDWeb), uuid));
  patcher.method(
    web,
    'getRandomValues',
    observe(recorder, recordGetRandomValues, substitute('crypto.getRandomValues', substitutes.fillSync)),
  );
  patchAliases(patcher, cryptoModule, randomBytes, cryptoModule.randomBytes);
  patchKeyGeneration(patcher, recorder, cryptoModule);
});

/** CONTROLLED while control mode supplies the values, else 0; set once by install. */
let flags = 0;

/** A call without a callback: every crypto entry point that takes one runs asynchronously with it. */
function isSync(args: IArguments): boolean {
  for (let i = 0; i < args.length; i++) if (typeof args[i] === 'function') return false;
  return true;
}

/**
 * Records one event once the original returned, and gives back what the program gets: `value`, or
 * in replay the recorded value in its place (the same Buffer or view, refilled). `wrapper` is the
 * function the program called.
 */
type RecordEvent = (recorder: Recorder, args: ArrayLike<unknown>, value: unknown, wrapper: Native) => unknown;

// Patched crypto calls on the stack right now: a nested one (an entry point that calls another
// inside Node) is the same draw, so only the outermost call records. The price: a draw made by the
// program's own code that Node runs mid-call (an options getter) is folded into the outer call.
let depth = 0;

/**
 * A plain wrapper (patch.ts `wrapPlain`) rather than a Proxy: randomUUID takes 30 to 40 ns, and a
 * Proxy's trap alone would add half of that.
 */
function observe(recorder: Recorder, record: RecordEvent, substitute?: Substitute): (original: Native) => Native {
  const call: Call = substitute ? (target, thisArg, args) => substitute(target, thisArg, ArrayCopy(args)) : real.apply;
  const contexts = recorder.contexts;
  return (original) => {
    const wrapper: Native = wrapPlain(original, (target, thisArg, args): unknown => {
      if (depth > 0 || !recorder.on) return call(target, thisArg, args);
      depth++;
      const sync = isSync(args) ? 1 : 0;
      contexts.syncDraws += sync;
      let value: unknown;
      try {
        value = call(target, thisArg, args); // a throw (bad arguments) reaches the program as is
      } finally {
        depth--;
        contexts.syncDraws -= sync;
      }
      try {
        return record(recorder, args, value, wrapper);
      } catch (error) {
        recorder.fail('ERR_DETDRIFT_RECORD', error);
        return value;
      }
    });
    return wrapper;
  };
}

/**
 * A draw whose value the program holds (bytes, a UUID, an integer): recorded as a digest, or raw
 * when the trace holds values for replay; in replay, the recorded value replaces it.
 */
function recordDraw(recorder: Recorder, api: number, value: unknown, wrapper: Native): unknown {
  const site = recorder.site(api, wrapper);
  const fed = recorder.replay(api, site);
  const replayed = fed !== undefined && feedInto(value, fed);
  const program = replayed ? (typeof value === 'object' ? value : fed) : value;
  const bits = replayed ? REPLAYED : flags;
  if (typeof program === 'number' && recorder.hold) recorder.number(api, Tag.f64 | bits, site, program);
  else if (typeof program === 'number') recorder.digest(api, site, program, bits);
  else if (typeof program === 'string' && recorder.hold) recorder.string(api, site, program, bits);
  else if (typeof program !== 'string' && recorder.hold)
    recorder.bytes(api, site, asView(program) as ArrayBufferView, bits);
  else recorder.digest(api, site, asView(program), bits);
  return program;
}

/** True when `fed` (the recorded value) can stand for `value`; bytes are copied into `value` itself. */
function feedInto(value: unknown, fed: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'string') return typeof fed === typeof value;
  if (!FunctionHasInstance(Uint8Array, fed)) return false;
  const bytes = bytesOf(asView(value) as ArrayBufferView);
  if (TypedArrayLength(bytes) !== TypedArrayLength(fed as Uint8Array)) return false;
  TypedArraySet(bytes, fed as Uint8Array);
  return true;
}

/** A callback form: how much it asked for, at call time; replay does not pin these (see DESIGN). */
function recordAmount(recorder: Recorder, api: number, amount: number, wrapper: Native): undefined {
  const site = recorder.site(api, wrapper);
  recorder.replay(api, site); // keeps the recording's ordinals in step
  recorder.number(api, Tag.uint | flags, site, amount);
  return undefined;
}

const digestOf =
  (api: number): RecordEvent =>
  (recorder, _args, value, wrapper) =>
    recordDraw(recorder, api, value, wrapper);

function asView(value: unknown): ArrayBufferView | string {
  if (typeof value === 'string' || ArrayBufferIsView(value)) return value as ArrayBufferView | string;
  return new Uint8Array(value as ArrayBuffer); // randomFillSync hands an ArrayBuffer back as is
}

// The callback forms return undefined and the sync forms never do.
const recordRandomBytes: RecordEvent = (recorder, args, value, wrapper) =>
  value !== undefined
    ? recordDraw(recorder, Api.randomBytes, value, wrapper)
    : recordAmount(recorder, Api.randomBytesCallback, (args[0] as number) >>> 0, wrapper);

const recordRandomFill: RecordEvent = (recorder, args, _value, wrapper) =>
  recordAmount(recorder, Api.randomFill, TypedArrayLength(bytesOf(asView(args[0]) as ArrayBufferView)), wrapper);

const recordRandomInt: RecordEvent = (recorder, args, value, wrapper) => {
  if (value !== undefined) return recordDraw(recorder, Api.randomInt, value, wrapper);
  // randomInt(max, callback) or randomInt(min, max, callback); the call succeeded, so they are valid
  const minGiven = ArgAt(args, 1) !== undefined && typeof ArgAt(args, 1) !== 'function';
  return recordAmount(
    recorder,
    Api.randomIntCallback,
    minGiven ? (args[1] as number) - (args[0] as number) : (args[0] as number),
    wrapper,
  );
};

const recordGetRandomValues: RecordEvent = (recorder, _args, value, wrapper) =>
  recordDraw(recorder, calledFromModule(wrapper) ? Api.getRandomValues : Api.getRandomValuesWeb, value, wrapper);

/**
 * Whether the direct caller of `wrapper` is node:crypto's module `getRandomValues`, the only way to
 * tell the two forms apart: the module property cannot be patched. One frame costs about 4 µs on
 * Node 20 to 24, about what getRandomValues itself costs; Math.random-hot paths never get here.
 * An unknown caller (a frozen Error) counts as the webcrypto form.
 */
function calledFromModule(wrapper: Native): boolean {
  return callerFile(wrapper) === 'node:crypto';
}

/**
 * `pseudoRandomBytes`, `prng` and `rng` are lazy getters that store and return the unpatched
 * randomBytes: on first read they store the wrapper instead, so the aliases stay `=== randomBytes`.
 * Under --pending-deprecation they yield a deprecate() wrapper that calls Node's internal
 * randomBytes; that is left alone (unrecorded), and the hook never reads them itself.
 */
function patchAliases(patcher: Patcher, cryptoModule: object, original: Native, wrapper: Native): void {
  const keys = ['pseudoRandomBytes', 'prng', 'rng'];
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const descriptor = real.getOwnPropertyDescriptor(cryptoModule, key);
    if (descriptor && 'value' in descriptor && descriptor.value === original) {
      patcher.value(cryptoModule, key, wrapper);
    } else if (descriptor?.get) {
      patcher.getter(cryptoModule, key, {
        apply(target, thisArg, args) {
          const value = real.apply(target, thisArg, args);
          if (value !== original || typeof thisArg !== 'object' || thisArg === null) return value;
          if (dataValue(thisArg, key) !== original) return value;
          const own = real.getOwnPropertyDescriptor(thisArg, key)!;
          if (!real.defineProperty(thisArg, key, { ...own, value: wrapper })) return value;
          return wrapper;
        },
      });
    }
  }
}
