import { SafeMap, type CallSite } from './real.js';

/** A stack's frames so far: the site id when a stack ends here, and the frames that go on from it. */
interface Node {
  id: number;
  readonly next: Map<string | null | undefined, Map<number, Node>>;
}

/**
 * The ids of the stacks seen so far, keyed frame by frame on (file, source position): a sampled
 * call from a known stack costs two getters per frame and two Map lookups, where a string key cost
 * three getters, number formatting and hashing a string of a few kilobytes (as much again as the
 * capture itself). A position is a line and column within its file, so two stacks share an id
 * exactly when their frames share file, line and column.
 */
export class SiteIds {
  private readonly root: Node = { id: 0, next: new SafeMap() };

  /** The id given to this stack, or 0 when it is new. */
  get(frames: readonly CallSite[]): number {
    let node: Node | undefined = this.root;
    for (let i = 0; i < frames.length && node !== undefined; i++) {
      const frame = frames[i]!;
      node = node.next.get(frame.getFileName())?.get(frame.getPosition());
    }
    return node?.id ?? 0;
  }

  set(frames: readonly CallSite[], id: number): void {
    let node = this.root;
    for (let i = 0; i < frames.length; i++) {
      const frame = frames[i]!;
      const file = frame.getFileName();
      const position = frame.getPosition();
      let byPosition = node.next.get(file);
      if (byPosition === undefined) node.next.set(file, (byPosition = new SafeMap()));
      let child = byPosition.get(position);
      if (child === undefined) byPosition.set(position, (child = { id: 0, next: new SafeMap() }));
      node = child;
    }
    node.id = id;
  }
}
