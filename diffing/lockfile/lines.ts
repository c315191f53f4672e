/**
 * Where a parsed mapping or sequence (and each key of a mapping) was in the text, for errors
 * about values found after parsing. Kept on the container itself under a symbol, invisible to
 * Object.keys and JSON, so the positions live and die with the tree.
 */
const WHERE = Symbol('detdrift.lockfile.where');

interface Where {
  readonly line: number;
  readonly keys: Map<string, number> | null;
}

type Marked = { [WHERE]?: Where };

/** Records the 1-based line of a container; a mapping also gets a table for its keys' lines. */
export function markLine(container: object, line: number, keyed: boolean): void {
  (container as Marked)[WHERE] = { line, keys: keyed ? new Map() : null };
}

export function markKey(container: object, key: string, line: number): void {
  (container as Marked)[WHERE]?.keys?.set(key, line);
}

/** The line of a key of `container`, else of the container, else 1. */
export function lineIn(container: object, key?: string): number {
  const where = (container as Marked)[WHERE];
  return (key !== undefined ? where?.keys?.get(key) : undefined) ?? where?.line ?? 1;
}
