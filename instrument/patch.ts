import { syncBuiltinESMExports } from 'node:module';
import { HookError } from '../tracer/errors.js';
import { Proxy } from '../tracer/primordials.js';
import { real, SafeWeakMap } from './real.js';

export interface Handle {
  /** Puts back exactly what install replaced, in reverse order. */
  uninstall(): void;
}

interface Saved {
  readonly target: object;
  readonly key: PropertyKey;
  /** what restore puts back (undefined: it deletes the property), or what to ask for it then */
  readonly descriptor: PropertyDescriptor | undefined | (() => PropertyDescriptor);
}

// biome-ignore lint/suspicious/noExplicitAny: a native's parameters and result are whatever the builtin takes and gives
export type Native = (...args: any[]) => any;

/** Every wrapper, Proxy or plain, and the function it stands for: what `toString` prints. */
const originals = new SafeWeakMap<object, object>();

/**
 * Wraps a native in a Proxy: name, length, own properties (`process.hrtime.bigint`,
 * `setTimeout[util.promisify.custom]`) and `prototype` stay the target's, and the receiver and
 * `new.target` pass through. `Function.prototype.toString` is masked so it prints the target.
 */
export function wrap<T extends object>(target: T, handler: ProxyHandler<T>): T {
  // A trap the handler lacks would be looked for on Object.prototype, where the program can put one.
  real.setPrototypeOf(handler, null);
  const proxy = new Proxy(target, handler);
  originals.set(proxy, target);
  return proxy;
}

/** What a plain wrapper does with one call: the original, the receiver, the call's own arguments. */
export type Call = (target: Native, thisArg: unknown, args: IArguments) => unknown;

/** A plain wrapper of `target` (see `imitate`) that hands every call to `call`. */
export function wrapPlain<T extends Native>(target: T, call: Call): T {
  return imitate(
    target,
    {
      wrapper(this: unknown): unknown {
        return call(target, this, arguments);
      },
    }.wrapper as T,
  );
}

/**
 * Makes `method`, a method literal written for `target`, stand for it, for the sources a program
 * calls in hot loops: a Proxy's apply trap costs about 20 ns per call and keeps TurboFan from
 * inlining the wrapper into the program's loop (bench/record.ts measures it). The wrapper looks
 * like the Proxy would: the target's own properties (name, length, `prototype`,
 * `process.hrtime.bigint`) copied with their descriptors and in their order, `toString` printing
 * the target, and `new` doing what it does to the target: a method is no constructor, so a
 * target that is one gets a function around the method that passes `new` on, subclasses' too.
 * Unlike a Proxy's, the properties are a snapshot: one the program adds later lands on the wrapper.
 * `construct`, for a constructor, decides what `new` makes instead (`Date`).
 */
export function imitate<T extends Native>(target: T, method: T, construct?: Construct): T {
  if (isConstructor(method))
    throw new HookError('ERR_DETDRIFT_PATCH', `cannot imitate ${target.name} with a constructor`);
  const wrapper = isConstructor(target) ? constructible(target, method, construct) : method;
  // index loops and saved built-ins: a family deferred.ts installs runs in the program's time, under its built-ins
  const keys = real.ownKeys(target);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (!real.defineProperty(wrapper, key, real.getOwnPropertyDescriptor(target, key)!)) {
      throw new HookError('ERR_DETDRIFT_PATCH', `cannot imitate ${target.name}: its ${String(key)} cannot be copied`);
    }
  }
  // a `vm` context's built-in gets a wrapper from the hook's realm: it inherits from the context's Function.prototype
  const prototype = real.getPrototypeOf(target);
  if (real.getPrototypeOf(wrapper) !== prototype) real.setPrototypeOf(wrapper, prototype);
  keepFast(wrapper);
  originals.set(wrapper, target);
  return wrapper;
}

/**
 * Lets V8 keep `target`'s properties in fast mode. Redefining a property (a method's value replaced
 * through `Object.defineProperty`) or defining a dozen on a fresh function (`imitate`) can turn an
 * object into a hash table for good, and every `Math.log` or `Date.now` the program looks up then
 * costs a dictionary probe: 30 to 40 ns a `Math.random()` in a loop, more than the recording
 * (bench/record.ts). An object used as a prototype is put back in fast mode at the next
 * property lookups through it, so `target` becomes the prototype of a throwaway object. Nothing a
 * program can see changes: no property, no prototype of its own objects.
 */
function keepFast(target: object): void {
  real.setPrototypeOf({}, target);
}

/**
 * What `new` does to an imitated constructor: its arguments, and the constructor whose prototype
 * the object gets (the target for `new Wrapper()`, a subclass through `super()`).
 */
export type Construct = (args: IArguments, newTarget: Function) => object;

function constructible<T extends Native>(target: T, method: T, construct?: Construct): T {
  const wrapper = function (this: unknown): unknown {
    if (new.target === undefined) return real.apply(method, this, arguments);
    const newTarget = new.target === wrapper ? target : new.target;
    return construct ? construct(arguments, newTarget) : real.construct(target, arguments, newTarget);
  };
  return wrapper as T;
}

/** Whether `new fn()` would construct; asked of a Proxy, so nothing of `fn` runs. */
function isConstructor(fn: Native): boolean {
  try {
    real.construct(new Proxy(fn, { construct: () => ({}) }), []);
    return true;
  } catch {
    return false; // only "not a constructor" can throw here: the trap itself returns an object
  }
}

/** The function a wrapper stands for, or the value itself. */
export function unwrap<T>(value: T): T {
  return (typeof value === 'function' && (originals.get(value) as T | undefined)) || value;
}

/** How a Patcher wraps what it replaces: a Proxy with this handler, or the plain wrapper this makes. */
export type Wrapping = ProxyHandler<Native> | ((original: Native) => Native);

function wrapWith(original: Native, wrapping: Wrapping): Native {
  return typeof wrapping === 'function' ? wrapping(original) : wrap(original, wrapping);
}

/**
 * Records every property it replaces so that `restore` puts back the very descriptors it found.
 * A family's install uses one Patcher; its handle's uninstall restores it.
 */
export class Patcher {
  private readonly saved: Saved[] = [];

  /** Replaces `target[key]`'s value, keeping the property's attributes. */
  value(target: object, key: PropertyKey, value: unknown): void {
    const descriptor = real.getOwnPropertyDescriptor(target, key);
    if (descriptor === undefined || !('value' in descriptor)) {
      throw new HookError('ERR_DETDRIFT_PATCH', `cannot patch ${String(key)}: not a data property`);
    }
    this.define(target, key, descriptor, { ...descriptor, value });
  }

  /** Replaces a method with a wrapper of it; returns the original. */
  method(target: object, key: PropertyKey, wrapping: Wrapping): Native {
    const original = (target as Record<PropertyKey, Native>)[key]!;
    this.value(target, key, wrapWith(original, wrapping));
    return original;
  }

  /**
   * `method` for a property Node may define lazily (`fs.opendir` on Node 20): an accessor whose
   * getter loads a module and turns the property into a data property. Reading it here would do
   * that for the program, which could see it in the descriptor; the getter is wrapped instead, and
   * the data property it makes holds the wrapper. A data property is patched as `method` does.
   */
  methodWhenLoaded(target: object, key: PropertyKey, wrapping: Wrapping): void {
    const descriptor = real.getOwnPropertyDescriptor(target, key);
    if (descriptor === undefined || 'value' in descriptor) return void this.method(target, key, wrapping);
    let loaded: { readonly original: Native; readonly wrapper: Native } | null = null;
    const load = wrap(descriptor.get!, {
      apply(get, thisArg, args) {
        const value = real.apply(get, thisArg, args) as Native;
        const own = real.getOwnPropertyDescriptor(target, key);
        if (typeof value !== 'function' || own?.value !== value) return value; // not a lazy method after all
        loaded ??= { original: value, wrapper: wrapWith(value, wrapping) };
        if (value !== loaded.original || !real.defineProperty(target, key, { ...own, value: loaded.wrapper }))
          return value;
        return loaded.wrapper;
      },
    });
    this.define(
      target,
      key,
      () => {
        // Node's getter, once it has run, leaves the data property for good: the original goes back in it.
        const own = real.getOwnPropertyDescriptor(target, key);
        return loaded && own?.value === loaded.wrapper ? { ...own, value: loaded.original } : descriptor;
      },
      { ...descriptor, get: load },
    );
  }

  /**
   * Defines an own property on `target` that shadows an inherited method with a Proxy of it;
   * restore deletes it again. Where the program (or a preload: tsx's hides its signal listeners,
   * Vitest's vm pools filter warnings out of `process.emit`) already put a method of its own
   * there, that method is wrapped instead.
   */
  shadow(target: object, key: PropertyKey, inherited: Native, handler: ProxyHandler<Native>): void {
    const own = real.getOwnPropertyDescriptor(target, key);
    if (own !== undefined) {
      if (typeof own.value !== 'function') {
        throw new HookError(
          'ERR_DETDRIFT_PATCH',
          `cannot shadow ${String(key)}: already an own property, not a method`,
        );
      }
      this.define(target, key, own, { ...own, value: wrap(own.value as Native, handler) });
      return;
    }
    const descriptor = { value: wrap(inherited, handler), writable: true, enumerable: false, configurable: true };
    if (!real.defineProperty(target, key, descriptor)) {
      throw new HookError('ERR_DETDRIFT_PATCH', `cannot shadow ${String(key)}`);
    }
    keepFast(target);
    this.saved[this.saved.length] = { target, key, descriptor: undefined };
  }

  /** Replaces an accessor's getter with a wrapper of it; returns the original getter. */
  getter(target: object, key: PropertyKey, wrapping: Wrapping): Native {
    const descriptor = real.getOwnPropertyDescriptor(target, key);
    if (descriptor?.get === undefined) {
      throw new HookError('ERR_DETDRIFT_PATCH', `cannot patch ${String(key)}: not an accessor`);
    }
    this.define(target, key, descriptor, { ...descriptor, get: wrapWith(descriptor.get, wrapping) });
    return descriptor.get;
  }

  /**
   * Runs `action` once, right before the first read of `target[key]` through its getter (a lazy
   * global of Node's, or `fs.promises`: each loads a builtin then), or now where the property already holds its
   * value. A lazy interface (`globalThis.Crypto`) turns itself into a data property on its first
   * read; restore then leaves that one as it is.
   */
  firstRead(target: object, key: PropertyKey, action: () => void): void {
    const descriptor = real.getOwnPropertyDescriptor(target, key);
    if (descriptor === undefined) return; // not on this Node, or turned off by a flag
    if (descriptor.get === undefined) return void action();
    const get = wrap(descriptor.get, {
      apply(original, thisArg, args) {
        action();
        return real.apply(original, thisArg, args);
      },
    });
    this.define(
      target,
      key,
      () => {
        const own = real.getOwnPropertyDescriptor(target, key);
        return own?.get === get ? descriptor : own!;
      },
      { ...descriptor, get },
    );
  }

  restore(): void {
    for (let i = this.saved.length - 1; i >= 0; i--) {
      const { target, key, descriptor: saved } = this.saved[i]!;
      const descriptor = typeof saved === 'function' ? saved() : saved;
      if (descriptor) real.defineProperty(target, key, descriptor);
      else delete (target as Record<PropertyKey, unknown>)[key];
      keepFast(target);
    }
    this.saved.length = 0;
    syncBuiltinESMExports();
  }

  private define(target: object, key: PropertyKey, before: Saved['descriptor'], after: PropertyDescriptor): void {
    if (!real.defineProperty(target, key, after)) {
      throw new HookError('ERR_DETDRIFT_PATCH', `cannot patch ${String(key)}: the property is not configurable`);
    }
    keepFast(target);
    this.saved[this.saved.length] = { target, key, descriptor: before };
  }
}

/** Above 0 while `batched` runs: installs then leave `syncBuiltinESMExports` to its end. */
let batching = 0;

/**
 * Runs several family installs with one `syncBuiltinESMExports` at the end instead of one per
 * family: each call walks every export of every builtin that has an ESM facade. The bundled hook
 * builds none (scripts/bundle-hook.mjs), so there it only covers facades something built before.
 */
export function batched<T>(installs: () => T): T {
  batching++;
  try {
    return installs();
  } finally {
    if (--batching === 0) syncBuiltinESMExports();
  }
}

/**
 * Gives a source family an install that refuses to run twice and returns a handle that undoes
 * exactly what it did. Named ESM imports of builtins see the wrappers (and, after uninstall,
 * the originals again) through `syncBuiltinESMExports`, at once or at the end of `batched`.
 */
export function family<R>(name: string, patch: (patcher: Patcher, recorder: R) => void): (recorder: R) => Handle {
  let installed = false;
  return (recorder) => {
    if (installed) throw new HookError('ERR_DETDRIFT_INSTALLED', `the ${name} family is already installed`);
    const patcher = new Patcher();
    try {
      patch(patcher, recorder);
    } catch (error) {
      patcher.restore();
      throw error;
    }
    installed = true;
    if (batching === 0) syncBuiltinESMExports();
    return {
      uninstall() {
        if (!installed) return;
        patcher.restore();
        installed = false;
      },
    };
  };
}

/** Makes `String(wrapper)` print what `String(original)` prints, for every wrapper made here. */
export const installToStringMask = family('Function.prototype.toString', (patcher) =>
  maskToString(patcher, Function.prototype),
);

/** installToStringMask for one realm's `Function.prototype` (a `vm` context's too, realms.ts). */
export function maskToString(patcher: Patcher, functionPrototype: Function): void {
  const masked = wrap(functionPrototype.toString, {
    apply: (target, thisArg, args) => {
      // a wrapper of a wrapper (two families wrap vm.runInNewContext) prints what the first wrapped
      let shown = thisArg as object;
      for (let inner = originals.get(shown); inner !== undefined; inner = originals.get(shown)) shown = inner;
      return real.apply(target, shown, args);
    },
  });
  patcher.value(functionPrototype, 'toString', masked);
}
