import { createHook, type AsyncHook } from 'node:async_hooks';
import type { ContextDef } from '../tracer/format.js';
import { real } from './real.js';

interface Node {
  readonly parent: Node | null;
  readonly ordinal: number;
  readonly type: string;
  children: number;
  /** the id written to the trace, given when an event first runs in this context; 0 is the root */
  id: number;
}

/**
 * Names async contexts deterministically: a context is its parent (the context that created it)
 * and its ordinal among that parent's children, so two runs that create the same work name it the
 * same even when it completes in another order. V8's async ids are not used: they count every
 * internal resource and differ between runs and Node versions.
 */
export class ContextTracker {
  private readonly root: Node = { parent: null, ordinal: 0, type: 'root', children: 0, id: 0 };
  private readonly nodes = new WeakMap<object, Node>();
  private readonly hook: AsyncHook;
  private nextId = 1;
  private lastAsyncId = -1;
  private lastId = 0;

  constructor(private readonly define: (id: number, def: ContextDef) => void) {
    this.hook = createHook({
      init: (_asyncId, type, _trigger, resource) => {
        const parent = this.nodes.get(real.executionAsyncResource()) ?? this.root;
        this.nodes.set(resource, { parent, ordinal: ++parent.children, type, children: 0, id: -1 });
      },
    });
  }

  enable(): void {
    this.hook.enable();
  }

  disable(): void {
    this.hook.disable();
  }

  /** The trace id of the context the program runs in now. */
  current(): number {
    const asyncId = real.executionAsyncId();
    if (asyncId === this.lastAsyncId) return this.lastId;
    this.lastAsyncId = asyncId;
    this.lastId = this.idOf(this.nodes.get(real.executionAsyncResource()) ?? this.root);
    return this.lastId;
  }

  private idOf(node: Node): number {
    if (node.id >= 0) return node.id;
    const parent = this.idOf(node.parent!);
    node.id = this.nextId++;
    this.define(node.id, { parent, ordinal: node.ordinal, type: node.type });
    return node.id;
  }
}
