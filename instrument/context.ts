import { createHook, type AsyncHook, type HookCallbacks } from 'node:async_hooks';
import { digestHex, digestString, fmix } from '../tracer/digest.js';
import { MathImul } from '../tracer/primordials.js';
import { builtin, real } from './real.js';

interface Node {
  /** the context's key: 64 bits, mixed from the parent's key and this context's ordinal (or a test's name) */
  high: number;
  low: number;
  readonly type: string;
  /** how many contexts this one created so far: the next child's ordinal */
  children: number;
  /** the id written to the trace, given when an event first runs in this context; 0 is the root */
  id: number;
  /** the key as hex, made when first asked for */
  key?: string;
  /** what the watcher keeps for this resource (a timer's scheduling call), if anything */
  watched?: unknown;
  /**
   * the test this context's work belongs to (instrument/tests.ts), null outside every test: a
   * context is in its creator's scope, so a test's awaits and timers are its own, and a runner's
   * callbacks made before the test began are not
   */
  scope: object | null;
}

/**
 * Hears of each async resource as it is created and before each of its callbacks (the timers
 * family, which sees a timer fire without wrapping its callback). It rides on the tracker's async
 * hook: a second hook cost each timer another round through node's hook dispatch, about 3 µs.
 */
export interface ResourceWatch<T = unknown> {
  /** A resource of `type` was created; what this returns (if not undefined) is handed to `before`. */
  init(type: string, resource: object): T | undefined;
  /** One of the resources `init` kept something for is about to run a callback. */
  before(watched: T): void;
}

/**
 * Names async contexts deterministically: a context is its parent (the context that created it)
 * and its ordinal among that parent's children, so two runs that create the same work name it the
 * same even when it completes in another order. V8's async ids are not used: they count every
 * internal resource and differ between runs and Node versions.
 *
 * The lineage is folded into a 64-bit key when a context is created, so a context holds no
 * reference to its parent: a loop of `await`s or a timer that reschedules itself creates an
 * endless lineage, and neither memory nor the work per context may grow with it.
 *
 * Promises are heard of through V8's promise hooks (`v8.promiseHooks`) where async_hooks can leave
 * them out (Node 22 and 24: untrackedHooks), once a run has made PROMISE_HOOKS_AFTER of them: an
 * async hook that tracks promises costs every promise Node's own bookkeeping first (an async id,
 * its trigger, a round through its hook lists: a loop of awaits ran 1.8 times slower under an
 * empty one, and 1.05 times under empty promise hooks). Then the promise whose reaction runs is
 * this tracker's to keep (`reaction`), where Node kept it as the execution resource; the names are
 * the same either way, since V8 hands both the same promises in the same order, and a program's
 * `executionAsyncId()` in a promise's callback is what it is without the hook. Elsewhere (Node 20),
 * and in a run of few promises, the async hook tracks promises.
 */
export class ContextTracker {
  private readonly root: Node = {
    high: 0,
    low: 0,
    type: 'root',
    children: 0,
    id: 0,
    key: 'root',
    watched: undefined,
    scope: null,
  };
  private hook: AsyncHook;
  private readonly callbacks: HookCallbacks;
  private readonly promiseCallbacks: PromiseCallbacks;
  /** node:v8's, once promises are heard of through them (toPromiseHooks) */
  private promiseHooks: PromiseHooks | null = null;
  /** stops the promise hooks while they are enabled */
  private stopPromiseHooks: (() => void) | null = null;
  /** makes the async hook that leaves promises out; null where V8's promise hooks cannot take them over */
  private readonly untracked: Untracked | null;
  /** promises the async hook hears of before V8's promise hooks take over; never where they cannot */
  private promisesLeft: number;
  /** set when the last of them was heard of: the next event the program records makes the move */
  private promiseHooksDue = false;
  /** above 0 while one of the async hook's callbacks runs */
  private inCallback = 0;
  private enabled = false;
  private nextId = 1;
  /** current()'s last answer, good while the execution resource's async id stays this one */
  private lastAsyncId = -1;
  private lastId = 0;
  private lastNode: Node = this.root;
  /** The running resource's async id and node, as init last found them (parent()) */
  private parentAsyncId = -1;
  private parentNode: Node = this.root;
  /**
   * The node of the promise whose reaction runs now, heard of from the promise hooks, and Node's
   * async id as it began: a callback of another resource run inside the reaction
   * (`AsyncResource.runInAsyncScope`) moves the async id, and is that resource's context while it runs.
   */
  private reaction: Node | null = null;
  private reactionAsyncId = -1;
  /**
   * Reactions a reaction interrupted, `depth` of them: a microtask does not run inside another, but
   * nothing is lost if one does. Never shrunk: setting an array's length costs a call into V8's runtime.
   */
  private readonly interrupted: Array<Node | null> = [];
  private readonly interruptedAsyncIds: number[] = [];
  private depth = 0;
  /**
   * Above 0 while a synchronous crypto draw runs (instrument/crypto.ts): the random-bytes job Node
   * makes for it runs and ends inside the call, so nothing ever runs in it and it gets no name and
   * no ordinal. Naming it cost a WeakMap entry per draw, which the GC paid for again (about 1 µs on
   * Node 20); and a randomUUID that refills its cache every 128th call no longer moves the
   * ordinals of the contexts its caller creates after it.
   */
  syncDraws = 0;
  /** the one watcher (instrument/timers.ts), set while its family is installed */
  watch: ResourceWatch | null = null;
  /**
   * asked at each new async resource while set: a test runner's adapter (runners/) looking for the
   * runner's state, which appears while the runner's worker starts, or for the runner's own
   * resources (node:test's tests); runners/probe.ts chains several
   */
  probe: ((type: string, resource: object) => void) | null = null;

  /**
   * `failed` hears of an error inside the async hook (the tracker's or its watcher's), which would
   * otherwise end the process: Node treats a throw there as fatal. The hook is disabled first, so
   * it is heard once. `promiseHooksAfter`: the promises the async hook hears of before V8's
   * promise hooks take over, where they can (tests set it: faults.ts).
   */
  constructor(
    private readonly define: (id: number, high: number, low: number, type: string) => void,
    failed: (error: unknown) => void = () => {},
    promiseHooksAfter = PROMISE_HOOKS_AFTER,
  ) {
    const fail = (error: unknown) => {
      this.disable();
      failed(error);
    };
    const name = (type: string, resource: object) => {
      const parent = this.parent();
      const ordinal = ++parent.children;
      let high = (parent.high ^ MathImul(ordinal, 0x9e3779b1)) >>> 0;
      let low = (parent.low ^ MathImul(ordinal + 0x7f4a7c15, 0x85ebca77)) >>> 0;
      high = fmix(high ^ low) >>> 0;
      low = fmix(low ^ high) >>> 0;
      const node: Node = {
        high,
        low,
        type,
        children: 0,
        id: -1,
        key: undefined,
        watched: undefined,
        scope: parent.scope,
      };
      // Node hands a promise to init once; other resources can come again (a refreshed timer, a
      // reused HTTP parser), stamped the first time.
      const known = type === 'PROMISE' ? undefined : Slot.own(resource);
      // node creates a timer again on the same object (`refresh()` after it fired): it stays watched
      if (this.watch !== null) node.watched = this.watch.init(type, resource) ?? known?.watched;
      if (known === undefined) Slot.stamp(resource, node);
      else Slot.write(resource, node);
      // a resource other than a promise can be the one running (a timer refreshed in its own
      // callback): what it creates from now on is its new node's
      if (type !== 'PROMISE') this.parentAsyncId = -1;
      if (this.probe !== null) this.probe(type, resource);
    };
    // null prototypes: createHook reads every callback it knows of, and from a program's time on
    // (toPromiseHooks) an `Object.prototype.after` of the program's would be read too
    this.callbacks = {
      __proto__: null,
      init: (_asyncId: number, type: string, _trigger: number, resource: object) => {
        if (this.syncDraws > 0 && type === 'RANDOMBYTESREQUEST') return;
        // once V8's promise hooks hear of promises, they name them: a Node that handed one to this hook
        // too (one that ignored kNoPromiseHook) would have it named twice, which stamping refuses
        if (type === 'PROMISE' && this.promiseHooks !== null) return;
        this.inCallback++;
        try {
          if (type === 'PROMISE' && --this.promisesLeft === 0) this.promiseHooksDue = true;
          name(type, resource);
        } catch (error) {
          fail(error);
        } finally {
          this.inCallback--;
        }
      },
      before: () => {
        const watch = this.watch;
        if (watch === null) return;
        this.inCallback++;
        try {
          // node runs `before` with the resource as the execution resource, callbacks and promises alike
          const node = this.enter();
          if (node.watched !== undefined) watch.before(node.watched);
        } catch (error) {
          fail(error);
        } finally {
          this.inCallback--;
        }
      },
    } as HookCallbacks;
    this.promiseCallbacks = {
      __proto__: null,
      init: (promise: Promise<unknown>) => {
        try {
          name('PROMISE', promise);
        } catch (error) {
          fail(error);
        }
      },
      before: (promise: Promise<unknown>) => {
        const depth = this.depth++;
        this.interrupted[depth] = this.reaction;
        this.interruptedAsyncIds[depth] = this.reactionAsyncId;
        this.reaction = Slot.read(promise) ?? this.root;
        this.reactionAsyncId = real.executionAsyncId();
      },
      after: () => {
        if (this.depth === 0) return void (this.reaction = null); // a reaction that began before the hook did
        const depth = --this.depth;
        this.reaction = this.interrupted[depth]!;
        this.reactionAsyncId = this.interruptedAsyncIds[depth]!;
        this.interrupted[depth] = null;
      },
    } as PromiseCallbacks;
    this.untracked = untrackedHooks();
    this.promisesLeft = this.untracked !== null ? promiseHooksAfter : Infinity;
    this.hook = createHook(this.callbacks);
  }

  enable(): void {
    if (this.enabled) return;
    this.enabled = true;
    if (this.promisesLeft <= 0 && this.promiseHooks === null) this.toPromiseHooks();
    if (this.stopPromiseHooks !== null) return; // toPromiseHooks enabled what it made
    real.apply(hookEnable, this.hook, []);
    if (this.promiseHooks !== null) this.stopPromiseHooks = this.promiseHooks.createHook(this.promiseCallbacks);
  }

  disable(): void {
    this.enabled = false;
    real.apply(hookDisable, this.hook, []);
    const stop = this.stopPromiseHooks;
    this.stopPromiseHooks = null;
    stop?.();
    this.reaction = null;
    this.depth = 0;
  }

  /**
   * From now on promises are heard of through V8's promise hooks: node:v8 is loaded (a tenth of
   * Node's start-up, which is why a run starts with the async hook tracking promises), the async
   * hook is made again without them, and the promises made so far keep their names, which the
   * promise hooks read off them as they run. Called when the tracker is enabled, or at an event the
   * program records (current()) outside the async hook's callbacks: Node stops tracking promises
   * when its last async hook is disabled, but not when that happens inside one of its callbacks,
   * and then never. Inside a promise's reaction it stops at the next microtask, after the
   * reaction's end; until then Node's execution resource is the promise, as before.
   */
  private toPromiseHooks(): void {
    this.promiseHooksDue = false;
    try {
      this.promiseHooks = builtin<{ promiseHooks: PromiseHooks }>('node:v8').promiseHooks;
    } catch {
      this.promisesLeft = Infinity; // node:v8 refused (a permission model): the async hook stays
      return;
    }
    const untracked = this.untracked!(this.callbacks);
    if (this.enabled) {
      // in this order: Node stops tracking promises only when its last async hook is disabled
      real.apply(hookDisable, this.hook, []);
      real.apply(hookEnable, untracked, []);
      this.stopPromiseHooks = this.promiseHooks.createHook(this.promiseCallbacks);
    }
    this.hook = untracked;
  }

  /**
   * The node of the resource running now, which creates the one init hears of. Looked up again only
   * when the async id changed: the lookup reads a symbol off resources of every shape (node's
   * `executionAsyncResource`), a few hundred instructions, and most promises are made a few to a
   * tick. `before` looks it up for the callback about to run, so what that callback creates finds
   * its parent kept.
   */
  private parent(): Node {
    const asyncId = real.executionAsyncId();
    if (this.reaction !== null && asyncId === this.reactionAsyncId) return this.reaction;
    return asyncId === this.parentAsyncId ? this.parentNode : this.enter();
  }

  /** Looks up the running resource's node, and keeps it as the parent of what it creates. */
  private enter(): Node {
    this.parentAsyncId = real.executionAsyncId();
    this.parentNode = Slot.read(real.executionAsyncResource()) ?? this.root;
    return this.parentNode;
  }

  /** The trace id of the context the program runs in now; its definition is written on first use. */
  current(): number {
    if (this.promiseHooksDue && this.inCallback === 0) this.toPromiseHooks();
    const asyncId = real.executionAsyncId();
    if (this.reaction !== null && asyncId === this.reactionAsyncId) return this.idOf(this.reaction);
    if (asyncId === this.lastAsyncId) return this.lastId;
    this.lastNode = Slot.read(real.executionAsyncResource()) ?? this.root;
    this.lastId = this.idOf(this.lastNode);
    this.lastAsyncId = asyncId;
    return this.lastId;
  }

  /**
   * The running context's key, as the trace names it and replay matches it: current()'s node, so
   * that it costs no lookup either (and defines the context a moment before the event that names it).
   */
  currentKey(): string {
    this.current();
    const reacting = this.reaction !== null && real.executionAsyncId() === this.reactionAsyncId;
    return keyOf(reacting ? this.reaction! : this.lastNode);
  }

  /** The scope of the context the program runs in now (Node.scope). */
  scope(): object | null {
    return this.running().scope;
  }

  /** Puts the running context, and every context it creates from now on, in `scope`. */
  enterScope(scope: object | null): void {
    this.running().scope = scope;
  }

  /**
   * Names what the running context creates from now on after `name` (a test's), as if it were a
   * root: their keys no longer depend on what the process did before. The running context keeps
   * the id and key it was defined with.
   */
  rename(name: string): void {
    const node = this.running();
    const { high, low } = digestString(name);
    node.high = high >>> 0;
    node.low = low >>> 0;
    node.children = 0;
  }

  /** current()'s node, without giving it a trace id. */
  private running(): Node {
    const asyncId = real.executionAsyncId();
    if (this.reaction !== null && asyncId === this.reactionAsyncId) return this.reaction;
    if (asyncId === this.lastAsyncId) return this.lastNode;
    return Slot.read(real.executionAsyncResource()) ?? this.root;
  }

  /** The node's trace id; its definition is written when it is first asked for. */
  private idOf(node: Node): number {
    if (node.id < 0) {
      node.id = this.nextId++;
      this.define(node.id, node.high, node.low, node.type);
    }
    return node.id;
  }
}

/** What V8's promise hooks call: a promise made, and a reaction of one about to run and done. */
interface PromiseCallbacks {
  init(promise: Promise<unknown>, parent: Promise<unknown> | undefined): void;
  before(promise: Promise<unknown>): void;
  after(promise: Promise<unknown>): void;
}

/** node:v8's `promiseHooks`: `createHook` enables them and hands back what stops them. */
interface PromiseHooks {
  createHook(callbacks: PromiseCallbacks): () => void;
}

/**
 * Promises a run makes before V8's promise hooks take them over from the async hook: loading
 * node:v8 costs about 3 ms (12-16 million instructions), and the promise hooks save about 0.1 µs
 * a promise, so a short run or a program of few promises never loads it, and one of a test
 * suite's hundreds of thousands of promises does early.
 */
export const PROMISE_HOOKS_AFTER = 16_384;

/** Makes an async hook that leaves promises out: V8's promise hooks then hear of them. */
type Untracked = (callbacks: HookCallbacks) => AsyncHook;

/**
 * How this Node makes an async hook that leaves promises out, or null where it cannot. Node 22's own
 * inspector marks its hook so (`kNoPromiseHook`, an own symbol of every AsyncHook, false unless
 * set: read before enable()), and Node 24's `trackPromises: false` sets the same mark. A probe made
 * with the option tells them apart: the mark set, the option is honoured; left false, the option is
 * unknown and the mark is set by hand. (Not by a number in the option, which Node 24 refuses: the
 * error it builds cost a third of a millisecond of every start.) Asked once, before the program
 * runs. A Node that ignored the mark would still track promises: the tracker leaves the async
 * hook's promises alone once V8's promise hooks hear of them.
 */
function untrackedHooks(): Untracked | null {
  const probe = createHook({ __proto__: null, trackPromises: false } as HookCallbacks);
  const flags = real.ownKeys(probe);
  for (let i = 0; i < flags.length; i++) {
    const flag = flags[i]!;
    if (typeof flag !== 'symbol' || flag.description !== 'kNoPromiseHook') continue;
    const marked = real.getOwnPropertyDescriptor(probe, flag)?.value;
    if (marked === true)
      return (callbacks) => createHook({ __proto__: null, ...callbacks, trackPromises: false } as HookCallbacks);
    if (marked !== false) return null;
    return (callbacks) => {
      const hook = createHook(callbacks);
      real.defineProperty(hook, flag, { value: true, writable: true, enumerable: true, configurable: true });
      return hook;
    };
  }
  return null;
}

/** Whether V8's promise hooks can take promises over from the async hook on this Node. */
export function promiseHooksApart(): boolean {
  return untrackedHooks() !== null;
}

// AsyncHook's methods as the hook found them: the program can reach and replace them on the prototype.
const { enable: hookEnable, disable: hookDisable } = Object.getPrototypeOf(createHook({})) as AsyncHook;

/** The node Slot.stamp is stamping a resource with, for its field's initializer. */
let stamping: Node;

/** A base class whose constructor hands back the object it is given: `new Slot(o)` stamps `o`. */
// biome-ignore lint/complexity/useArrowFunction: `new Given(o)` needs a constructor, which an arrow is not
const Given = function (resource: object) {
  return resource;
} as unknown as new (
  resource: object,
) => object;

/**
 * A context's node, kept on its async resource in a private field. A WeakMap keyed by every
 * resource made the GC's ephemeron work grow with the promises a program makes: a loop of awaits
 * ran 6 to 12 times slower under the hook (the field, 2.5 to 3 times; an empty async hook alone,
 * 1.7 to 2). A private field is invisible to the program's reflection, as a WeakMap entry was:
 * no key, no symbol, no Proxy trap and no `util.inspect` shows it, and no method it can replace
 * is called. A debugger does list it (`Runtime.getProperties`' private properties).
 */
class Slot extends Given {
  // defined with its node, from `stamping`: a field defined, then set, cost a second lookup
  #node: Node = stamping;

  // A constructor of its own: the default one spreads its arguments through the program's array iterator.
  private constructor(resource: object) {
    super(resource);
  }

  /** Stamps `resource`, which has no node yet, with `node`. */
  static stamp(resource: object, node: Node): void {
    stamping = node;
    new Slot(resource);
  }

  /** The node of the resource running now (node's execution resource), if it has one. */
  static read(resource: object): Node | undefined {
    return #node in resource ? (resource as Slot).#node : undefined;
  }

  /**
   * read() for a resource init hears of, apart so that each keeps feedback of its own: V8 caches
   * a lookup per place in the code, and one shared by every kind of resource and promise state
   * had seen too many shapes to cache (a megamorphic lookup, hundreds of instructions a promise).
   */
  static own(resource: object): Node | undefined {
    return #node in resource ? (resource as Slot).#node : undefined;
  }

  /** A resource init hears of again gets its new node. */
  static write(resource: object, node: Node): void {
    (resource as Slot).#node = node;
  }
}

function keyOf(node: Node): string {
  if (node.key === undefined) node.key = digestHex(node.high, node.low);
  return node.key;
}
