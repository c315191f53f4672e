import vm from 'node:vm';
import { ArgAt, ArrayCopy } from '../tracer/primordials.js';
import { clockOf, patchDate } from './clock.js';
import { family, maskToString, Patcher, unwrap, type Handle } from './patch.js';
import { patchRandom } from './random.js';
import { real, SafeWeakSet } from './real.js';
import type { Recorder } from './recorder.js';

// Saved at load, before the program can replace them: a realm is patched while the program runs.
const { createContext, runInContext, isContext } = vm;
const RealWeakRef = WeakRef;
const deref = WeakRef.prototype.deref;
const { deleteProperty } = Reflect;

/** A context's global and the patches on it, held weakly: a runner makes a context per test file. */
interface Patched {
  readonly global: WeakRef<typeof globalThis>;
  readonly patcher: Patcher;
  /** the contextified object, when `Date` had to be taken off it again (see patchRealm) */
  readonly sandbox: object | null;
}

/**
 * Every `vm` context the program makes records as the main realm does: its own `Math.random`,
 * `Date` (`Date.now`, `new Date()`, `Date()`) and `Function.prototype.toString`, which a new
 * context has as intrinsics of its own (Jest runs each test file in one; so do Vitest's vm
 * pools). What a context gets from the main realm (a runner copies `performance`, `crypto` and the
 * timers in) is recorded already. Each context's calls are sampled apart (schedule.ts), so its
 * first calls get their stacks however many the runner made before.
 *
 * Contexts are made by `vm.createContext` and inside `vm.runInNewContext` and
 * `Script#runInNewContext`, which call Node's createContext directly: those two get a context made
 * and patched first, which Node's createContext then hands back as it is.
 */
export function install(recorder: Recorder, made: ((global: object) => void) | null = null): Handle {
  const realms: Patched[] = [];
  const handle = patch({ recorder, realms, made });
  return {
    uninstall() {
      handle.uninstall();
      for (const { global, patcher, sandbox } of realms) {
        if (real.apply(deref, global, []) === undefined) continue;
        patcher.restore();
        if (sandbox !== null) deleteProperty(sandbox, 'Date');
      }
      realms.length = 0;
    },
  };
}

/** `made` hears of each context's global once it is patched (runners/jest.ts looks there for Jest's state). */
const patch = family<{ recorder: Recorder; realms: Patched[]; made: ((global: object) => void) | null }>(
  'vm',
  (patcher, { recorder, realms, made }) => {
    const seen = new SafeWeakSet<object>();
    const enter = (context: unknown): void => {
      if (typeof context !== 'object' || context === null || seen.has(context)) return;
      seen.add(context);
      try {
        const patched = patchRealm(recorder, context);
        realms[realms.length] = patched;
        if (made !== null) made(real.apply(deref, patched.global, []) as object);
      } catch (error) {
        // the program's createContext has done its work: what failed is ours, and stays ours
        recorder.fail('ERR_DETDRIFT_PATCH', error);
      }
    };
    // runInNewContext's context options, as Node's getContextOptions reads them; Node validates them.
    const contextified = (sandbox: unknown, options: unknown): unknown => {
      if (typeof sandbox === 'object' && sandbox !== null && isContext(sandbox)) return sandbox;
      const given = (typeof options === 'object' && options !== null ? options : {}) as Record<string, unknown>;
      const context = createContext(sandbox as vm.Context, {
        name: given.contextName as string,
        origin: given.contextOrigin as string,
        codeGeneration: given.contextCodeGeneration as vm.CreateContextOptions['codeGeneration'],
        microtaskMode: given.microtaskMode as 'afterEvaluate',
      });
      enter(context);
      return context;
    };
    patcher.method(vm, 'createContext', {
      apply(target, thisArg, args) {
        const context = real.apply(target, thisArg, args);
        enter(context);
        return context;
      },
    });
    patcher.method(vm, 'runInNewContext', {
      apply(target, thisArg, args) {
        const copy = ArrayCopy(args);
        copy[1] = contextified(ArgAt(args, 1), typeof ArgAt(args, 2) === 'string' ? undefined : ArgAt(args, 2));
        return real.apply(target, thisArg, copy);
      },
    });
    patcher.method(vm.Script.prototype, 'runInNewContext', {
      apply(target, thisArg, args) {
        const copy = ArrayCopy(args);
        copy[0] = contextified(ArgAt(args, 0), ArgAt(args, 1));
        return real.apply(target, thisArg, copy);
      },
    });
  },
);

/**
 * Patches the intrinsics of the context whose contextified object is `context`, skipping any the
 * program handed in from another realm (`vm.createContext({ Date })`: those are ours already).
 * Defining `Date` through the context's global also defines it on the contextified object, where
 * the program would see it: it is taken off that object again, and the global keeps it.
 */
function patchRealm(recorder: Recorder, context: object): Patched {
  const global = runInContext('this', context as vm.Context) as typeof globalThis;
  const patcher = new Patcher();
  const sandboxHadDate = context !== global && real.getOwnPropertyDescriptor(context, 'Date') !== undefined;
  const sampling = recorder.newSampling();
  const { Function: ContextFunction, Math: ContextMath, Date: ContextDate } = global;
  const toString = typeof ContextFunction === 'function' ? ContextFunction.prototype.toString : undefined;
  if (toString !== undefined && unwrap(toString) === toString) {
    maskToString(patcher, ContextFunction.prototype);
  }
  if (typeof ContextMath?.random === 'function' && unwrap(ContextMath.random) === ContextMath.random) {
    patchRandom(patcher, recorder, ContextMath, sampling);
  }
  let sandbox: object | null = null;
  if (typeof ContextDate === 'function' && unwrap(ContextDate) === ContextDate && !sandboxHadDate) {
    patchDate(patcher, recorder, global, sampling, clockOf(recorder));
    const defined = context === global ? undefined : real.getOwnPropertyDescriptor(context, 'Date');
    if (defined !== undefined && deleteProperty(context, 'Date')) {
      sandbox = context;
      // a Node that keeps what is defined through the global on the contextified object alone
      if (global.Date === ContextDate) real.defineProperty(context, 'Date', defined);
    }
  }
  return { global: new RealWeakRef(global), patcher, sandbox };
}
