import { createHook, type AsyncHook, type HookCallbacks } from 'node:async_hooks';
import { digestHex, fmix } from '../tracer/digest.js';
import { MathImul } from '../tracer/primordials.js';
import { builtin, real } from './real.js';

interface Node {
  /** the context's key: 64 bits, mixed from the parent's key and this context's ordinal */
  readonly high: number;
  readonly low: number;
  readonly type: string;
  /** how many contexts this one created so far: the next child's ordinal */
  children: number;
  /** the id written to the trace, given when an event first runs in this context; 0 is the root */
  id: number;
  /** the key as hex, made when first asked for */
  key?: string;
  /** what the watcher keeps for this resource (a timer's scheduling call), if anything */
  watched?: unknown;
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
 * them out (`trackPromises: false`, Node 24): an async hook that tracks promises costs every promise
 * Node's own bookkeeping first (an async id, its trigger, a round through its hook lists: a loop of
 * awaits ran 1.8 times slower under an empty one, and 1.05 times under empty promise hooks). Then
 * the promise whose reaction runs is this tracker's to keep (`reaction`), where Node kept it as
 * the execution resource; the names are the same either way, since V8 hands both the same promises
 * in the same order, and a program's `executionAsyncId()` in a promise's callback is what it is
 * without the hook. Elsewhere (Node 20, 22) the async hook tracks promises too.
 */
export class ContextTracker {
  private readonly root: Node = { high: 0, low: 0, type: 'root', children: 0, id: 0, key: 'root', watched: undefined };
  private readonly hook: AsyncHook;
  /** V8's promise hooks' callbacks, where promises are heard of through them; null where the async hook hears them */
  private readonly promiseCallbacks: PromiseCallbacks | null;
  /** stops the promise hooks while they are enabled */
  private stopPromiseHooks: (() => void) | null = null;
  private nextId = 1;
  private lastAsyncId = -1;
  private lastId = 0;
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
   * `failed` hears of an error inside the async hook (the tracker's or its watcher's), which would
   * otherwise end the process: Node treats a throw there as fatal. The hook is disabled first, so
   * it is heard once. `promisesFromAsyncHook`: the async hook tracks promises even where V8's
   * promise hooks could serve (a test's switch, faults.ts).
   */
  constructor(
    private readonly define: (id: number, high: number, low: number, type: string) => void,
    failed: (error: unknown) => void = () => {},
    promisesFromAsyncHook = false,
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
      const node: Node = { high, low, type, children: 0, id: -1, key: undefined, watched: undefined };
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
    };
    const callbacks: HookCallbacks & { trackPromises?: boolean } = {
      init: (_asyncId, type, _trigger, resource) => {
        if (this.syncDraws > 0 && type === 'RANDOMBYTESREQUEST') return;
        try {
          name(type, resource);
        } catch (error) {
          fail(error);
        }
      },
      before: () => {
        const watch = this.watch;
        if (watch === null) return;
        try {
          // node runs `before` with the resource as the execution resource, callbacks and promises alike
          const node = this.enter();
          if (node.watched !== undefined) watch.before(node.watched);
        } catch (error) {
          fail(error);
        }
      },
    };
    this.promiseCallbacks =
      !promisesFromAsyncHook && promiseHooksApart()
        ? {
            init: (promise) => {
              try {
                name('PROMISE', promise);
              } catch (error) {
                fail(error);
              }
            },
            before: (promise) => {
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
          }
        : null;
    if (this.promiseCallbacks !== null) callbacks.trackPromises = false;
    this.hook = createHook(callbacks);
  }

  enable(): void {
    real.apply(hookEnable, this.hook, []);
    if (this.promiseCallbacks !== null && this.stopPromiseHooks === null)
      this.stopPromiseHooks = promiseHooks().createHook(this.promiseCallbacks);
  }

  disable(): void {
    real.apply(hookDisable, this.hook, []);
    const stop = this.stopPromiseHooks;
    this.stopPromiseHooks = null;
    stop?.();
    this.reaction = null;
    this.depth = 0;
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
    const asyncId = real.executionAsyncId();
    if (this.reaction !== null && asyncId === this.reactionAsyncId) return this.idOf(this.reaction);
    if (asyncId === this.lastAsyncId) return this.lastId;
    this.lastId = this.idOf(Slot.read(real.executionAsyncResource()) ?? this.root);
    this.lastAsyncId = asyncId;
    return this.lastId;
  }

  /** The running context's key, as the trace names it and replay matches it. */
  currentKey(): string {
    if (this.reaction !== null && real.executionAsyncId() === this.reactionAsyncId) return keyOf(this.reaction);
    return keyOf(Slot.read(real.executionAsyncResource()) ?? this.root);
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

/** node:v8's promise hooks, loaded where they are used. */
function promiseHooks(): { createHook(callbacks: PromiseCallbacks): () => void } {
  return builtin<{ promiseHooks: ReturnType<typeof promiseHooks> }>('node:v8').promiseHooks;
}

/**
 * Whether async_hooks can leave promises out (`trackPromises`): where it can, Node checks the
 * option's type, and a hook made with a number in it throws. Asked once, before the program runs.
 */
export function promiseHooksApart(): boolean {
  try {
    createHook({ trackPromises: 0 } as HookCallbacks);
    return false;
  } catch {
    return true;
  }
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
