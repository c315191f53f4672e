import { Module } from 'node:module';
import { SafeMap, StringSlice, StringStartsWith } from '../tracer/primordials.js';
import { batched, Patcher, type Handle } from './patch.js';
import { real, SafeWeakSet } from './real.js';

/**
 * A family the program reaches only through builtins it loads (`require('node:crypto')`,
 * `import 'node:child_process'`, `process.getBuiltinModule('os')`) or through accessors Node itself
 * defines lazily (`globalThis.crypto`, `performance`, `fs.promises`). Where in-thread module hooks exist
 * (`module.registerHooks`: Node 22.15 and 24) it is installed when the program first loads one of
 * them, before Node hands the builtin out: a program that never does pays nothing for it, neither
 * the patching nor the loading (crypto, child_process and Web Crypto cost tens of milliseconds of
 * start-up). On Node 20 every family is installed up front, in the same order.
 */
export interface Deferred {
  readonly install: () => Handle;
  /** the builtins, without `node:`, whose first load installs it */
  readonly modules: readonly string[];
  /**
   * accessors whose first read installs it: Node's lazy globals over those builtins
   * (`[globalThis, 'crypto']`), and the getter of `fs.promises`, which loads `node:fs/promises`
   */
  readonly reads?: readonly Accessor[];
}

/** A property of an object, read through a getter. */
export type Accessor = readonly [target: object, key: PropertyKey];

interface ModuleHooks {
  resolve?(
    specifier: string,
    context: unknown,
    nextResolve: (specifier: string, context: unknown) => { url?: unknown },
  ): unknown;
  load?(url: string, context: unknown, nextLoad: (url: string, context: unknown) => unknown): unknown;
}
type RegisterHooks = (hooks: ModuleHooks) => { deregister?(): void };

const registerHooks = (Module as unknown as { registerHooks?: RegisterHooks }).registerHooks;

/** Whether this Node lets a family wait for the program's first load of its builtins. */
export const canDefer = typeof registerHooks === 'function';

interface Listeners {
  /** each family's handle, as it is installed */
  readonly installed: (handle: Handle) => void;
  /** an install that threw: the program goes on, since what set it off is the program's own `require` */
  readonly failed: (error: unknown) => void;
  /**
   * Whether the hook came first, was not imported, and the process has no ES module preloads
   * (register.cts firstPreload): then no ES module has imported a builtin yet, and loads are
   * enough to listen to (see installDeferred).
   */
  readonly first: boolean;
}

/**
 * Installs each of `deferred` when the program first reaches it (canDefer must hold). The handle
 * stops listening and puts back what was wrapped to listen (the accessors' getters,
 * `process.getBuiltinModule`); the families' own handles go to `installed`, the caller's to undo.
 */
export function installDeferred(deferred: readonly Deferred[], { installed, failed, first }: Listeners): Handle {
  const waiting = new SafeMap<string, Deferred[]>();
  const done = new SafeWeakSet<Deferred>();
  let left = deferred.length;
  let hooks: { deregister?(): void } | null = null;
  const stop = () => {
    hooks?.deregister?.();
    hooks = null;
  };
  const run = (entry: Deferred) => {
    // marked first: a load its own install makes does not run it again
    if (done.has(entry)) return;
    done.add(entry);
    if (--left === 0) stop(); // nothing left to wait for: module loads cost nothing again
    try {
      installed(entry.install());
    } catch (error) {
      failed(error);
    }
  };
  // In one batch: the ESM facades are brought up to date once for all the families one load or read
  // sets off, and not at all when all are installed, as at each later read of a wrapped getter.
  const runAll = (entries: readonly Deferred[] | undefined) => {
    let i = 0;
    while (entries !== undefined && i < entries.length && done.has(entries[i]!)) i++;
    if (entries === undefined || i === entries.length) return;
    batched(() => {
      for (; i < entries.length; i++) run(entries[i]!);
    });
  };
  const loaded = (specifier: string) =>
    runAll(waiting.get(StringStartsWith(specifier, 'node:') ? StringSlice(specifier, 5) : specifier));
  const reads: { readonly accessor: Accessor; readonly entries: Deferred[] }[] = [];
  for (const entry of deferred) {
    for (const name of entry.modules) waiting.set(name, [...(waiting.get(name) ?? []), entry]);
    for (const accessor of entry.reads ?? []) {
      const read = reads.find((other) => other.accessor[0] === accessor[0] && other.accessor[1] === accessor[1]);
      if (read) read.entries.push(entry);
      else reads.push({ accessor, entries: [entry] });
    }
  }
  const patcher = new Patcher();
  try {
    for (const { accessor, entries } of reads) patcher.firstRead(accessor[0], accessor[1], () => runAll(entries));
    patcher.method(process, 'getBuiltinModule', {
      apply(target, thisArg, args) {
        if (typeof args[0] === 'string') loaded(args[0]);
        return real.apply(target, thisArg, args);
      },
    });
    // Node's module hooks hear of a builtin before the program gets it: a load hook at each require
    // of it and at the first import, a resolve hook at every require and import of anything. Any
    // resolve hook sends every require of every module down Node's slower path (URLs made and
    // parsed back: a tenth more time in the loading of Jest's own modules), so the hook listens to
    // loads where it can. It cannot where an ES module may have imported a builtin before the hook
    // started (a preload before it: tsx's): Node loads a builtin for ESM once, and the program's
    // later import of it is only resolved. Either way the family's install brings a facade built
    // before up to date (patch.ts family: syncBuiltinESMExports).
    const heard = (url: unknown) => {
      if (typeof url === 'string' && StringStartsWith(url, 'node:')) loaded(url);
    };
    hooks = registerHooks!(
      first
        ? {
            load(url, context, nextLoad) {
              heard(url);
              return nextLoad(url, context);
            },
          }
        : {
            resolve(specifier, context, nextResolve) {
              const resolved = nextResolve(specifier, context);
              heard(resolved?.url);
              return resolved;
            },
          },
    );
  } catch (error) {
    stop();
    patcher.restore();
    throw error;
  }
  return {
    uninstall() {
      stop();
      patcher.restore();
    },
  };
}
