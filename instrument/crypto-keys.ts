import type cryptoTypes from 'node:crypto';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { ArgAt, ArrayBufferIsView, ArrayCopy, FunctionHasInstance } from '../tracer/primordials.js';
import type { Native, Patcher } from './patch.js';
import { promiseThen, real, SafeMap } from './real.js';
import type { Recorder } from './recorder.js';

type Keys = typeof cryptoTypes;

/**
 * Key generation, whose entropy comes from OpenSSL and no seed reaches: `generateKey` and
 * `generateKeyPair` (sync and callback forms) and Web Crypto's `subtle.generateKey`. Each call is
 * recorded at its site with a digest of the key it made (a pair's public key, a secret key's
 * bytes), never the key, so two runs' keys compare. A non-extractable Web Crypto secret key cannot
 * be read without a warning Node 24 prints: its event has no value. Control mode and replay leave
 * keys real (tracer/apis.ts UNPINNED_APIS). `subtle.generateKey`'s promise settles one tick later,
 * as the fs promise forms do.
 */
export function patchKeyGeneration(patcher: Patcher, recorder: Recorder, crypto: Keys): void {
  const material = materialOf(crypto);
  const record = (api: number, site: number, key: unknown) => {
    if (!recorder.on) return;
    try {
      const bytes = material(key);
      if (bytes === null) recorder.number(api, Tag.none, site, 0);
      else recorder.digest(api, site, bytes);
    } catch (error) {
      recorder.fail('ERR_DETDRIFT_RECORD', error); // the program still gets its key
    }
  };
  const sync = (api: number, pick: (result: unknown) => unknown): ProxyHandler<Native> => ({
    apply(target, thisArg, args) {
      if (!recorder.on) return real.apply(target, thisArg, args);
      const site = recorder.site(api);
      const result = real.apply(target, thisArg, args);
      record(api, site, pick(result));
      return result;
    },
  });
  const callback = (api: number): ProxyHandler<Native> => ({
    apply(target, thisArg, args) {
      const done = ArgAt(args, args.length - 1);
      if (!recorder.on || typeof done !== 'function') return real.apply(target, thisArg, args);
      const site = recorder.site(api);
      const passed = ArrayCopy(args);
      // Named for the one frame it adds below the program's callback in stacks taken there.
      passed[args.length - 1] = function recordThenCall(this: unknown, error: unknown, key: unknown) {
        if (error == null) record(api, site, key); // a pair's callback gets the public key first
        return real.apply(done as Native, this, arguments);
      };
      return real.apply(target, thisArg, passed);
    },
  });
  const exports = crypto as unknown as Record<string, Native>;
  const publicOf = (pair: unknown) => (pair as { publicKey?: unknown } | null)?.publicKey;
  patcher.method(
    exports,
    'generateKeySync',
    sync(Api.generateKeySync, (key) => key),
  );
  patcher.method(exports, 'generateKeyPairSync', sync(Api.generateKeyPairSync, publicOf));
  patcher.method(exports, 'generateKey', callback(Api.generateKey));
  patcher.method(exports, 'generateKeyPair', callback(Api.generateKeyPair));
  const subtle = real.getPrototypeOf(crypto.webcrypto.subtle) as Record<string, Native>;
  patcher.method(subtle, 'generateKey', {
    apply(target, thisArg, args) {
      if (!recorder.on) return real.apply(target, thisArg, args);
      const site = recorder.site(Api.generateKeyWeb);
      const promise = real.apply(target, thisArg, args) as Promise<unknown>;
      if (!real.isPromise(promise)) return promise;
      return promiseThen(promise, (key) => {
        const pair = publicOf(key);
        record(Api.generateKeyWeb, site, pair === undefined ? key : pair);
        return key;
      });
    },
  });
}

/**
 * What a key's digest is taken of: a string or Buffer as the program got it (a pair's encoded
 * key), a KeyObject's secret bytes or public key (DER), a CryptoKey's through its KeyObject when
 * it is extractable; null when none can be read. Node's methods, saved at install.
 */
function materialOf(crypto: Keys): (key: unknown) => ArrayBufferView | string | null {
  const { KeyObject } = crypto;
  const from = KeyObject.from;
  // `export` is each kind's own (SecretKeyObject, PublicKeyObject): looked up at the first key of a kind.
  const exporters = new SafeMap<object, Native>();
  const exportKey = (key: object, args: unknown[]) => {
    const kind = real.getPrototypeOf(key)!;
    let method = exporters.get(kind);
    if (method === undefined) exporters.set(kind, (method = inherited(kind, 'export')));
    return real.apply(method, key, args) as ArrayBufferView;
  };
  const typeOf = real.getOwnPropertyDescriptor(KeyObject.prototype, 'type')!.get!;
  // Web Crypto's CryptoKey, found when a key first needs it: node:crypto does not export it.
  let CryptoKey: Class | null = null;
  let extractable: Native | null = null;
  const isExtractable = (key: unknown): boolean => {
    CryptoKey ??= globalClass('CryptoKey');
    extractable ??= real.getOwnPropertyDescriptor(CryptoKey.prototype, 'extractable')!.get!;
    return FunctionHasInstance(CryptoKey, key) && real.apply(extractable, key, []) === true;
  };
  const read = (key: object): ArrayBufferView | null => {
    const type = real.apply(typeOf, key, []);
    if (type === 'secret') return exportKey(key, []);
    if (type === 'public') return exportKey(key, [{ type: 'spki', format: 'der' }]);
    return null;
  };
  return (key) => {
    if (typeof key === 'string' || ArrayBufferIsView(key)) return key as string | ArrayBufferView;
    if (FunctionHasInstance(KeyObject as unknown as Class, key)) return read(key as object);
    return isExtractable(key) ? read(real.apply(from, KeyObject, [key]) as object) : null;
  };
}

type Class = abstract new () => unknown;

/** The method `name` of objects whose prototype is `proto`, read without running a getter. */
function inherited(proto: object | null, name: string): Native {
  for (; proto !== null; proto = real.getPrototypeOf(proto)) {
    const descriptor = real.getOwnPropertyDescriptor(proto, name);
    if (descriptor) return descriptor.value as Native;
  }
  throw new real.Error(`no ${name} method`);
}

/** A global class as Node defines it: a value, or a lazy getter's. */
function globalClass(name: string): Class {
  const descriptor = real.getOwnPropertyDescriptor(globalThis, name)!;
  return ('value' in descriptor ? descriptor.value : real.apply(descriptor.get!, globalThis, [])) as Class;
}
