import type { LockedEdge, LockedImporter, LockedPackage, Lockfile, RawLockfile } from './model.js';

/**
 * Completes a reader's graph: edges sorted and pointing at known packages only, then what needs
 * the whole graph: which packages are direct, dev-only, optional-only, and the shortest path to each.
 * Every walk is a breadth-first search with a visited set: linear in the graph, cycles included.
 */
export function finish(raw: RawLockfile, file: string): Lockfile {
  const known = new Set(raw.packages.map((pkg) => pkg.key));
  const clean = (edges: readonly LockedEdge[]) =>
    edges
      .filter((edge) => known.has(edge.target))
      .sort((a, b) => compareText(a.name, b.name) || compareText(a.target, b.target));
  const importers: LockedImporter[] = raw.importers
    .map((importer) => ({ id: importer.id, edges: clean(importer.edges) }))
    .sort((a, b) => compareText(a.id, b.id));
  const nodes = new Map(raw.packages.map((pkg) => [pkg.key, { ...pkg, edges: clean(pkg.edges) }]));
  const roots = importers.flatMap((importer) => importer.edges);

  const via = shortestPaths(roots, nodes);
  const direct = new Set(roots.map((edge) => edge.target));
  const prod = reach(
    roots.filter((edge) => !edge.dev),
    nodes,
    () => true,
  );
  const required = reach(
    roots.filter((edge) => !edge.optional),
    nodes,
    (edge) => !edge.optional,
  );

  // Paths are walked when asked for: stored whole, a long dependency chain would cost its length squared.
  const pathOf = (key: string): readonly string[] => {
    const names: string[] = [];
    for (let at: string | undefined = key; at !== undefined; at = via.get(at) ?? undefined)
      names.push(nodes.get(at)!.name);
    return names.reverse();
  };
  const packages = new Map<string, LockedPackage>();
  for (const key of [...nodes.keys()].sort(compareText)) {
    const reached = via.has(key);
    packages.set(key, {
      ...nodes.get(key)!,
      direct: direct.has(key),
      dev: reached && !prod.has(key),
      optional: reached && !required.has(key),
      get path() {
        return pathOf(key);
      },
    });
  }
  return { file, format: raw.format, version: raw.version, importers, packages };
}

type Nodes = ReadonlyMap<string, { readonly name: string; readonly edges: readonly LockedEdge[] }>;

/** Breadth-first from the importers: each reached package's predecessor on a shortest path (null: direct). */
function shortestPaths(roots: readonly LockedEdge[], nodes: Nodes): Map<string, string | null> {
  const via = new Map<string, string | null>();
  let frontier: string[] = [];
  for (const edge of roots) {
    if (via.has(edge.target)) continue;
    via.set(edge.target, null);
    frontier.push(edge.target);
  }
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const key of frontier) {
      for (const edge of nodes.get(key)!.edges) {
        if (via.has(edge.target)) continue;
        via.set(edge.target, key);
        next.push(edge.target);
      }
    }
    frontier = next;
  }
  return via;
}

function reach(roots: readonly LockedEdge[], nodes: Nodes, follow: (edge: LockedEdge) => boolean): Set<string> {
  const seen = new Set(roots.map((edge) => edge.target));
  const stack = [...seen];
  while (stack.length > 0) {
    for (const edge of nodes.get(stack.pop()!)!.edges) {
      if (follow(edge) && !seen.has(edge.target)) {
        seen.add(edge.target);
        stack.push(edge.target);
      }
    }
  }
  return seen;
}

/** Code-unit order: the same on every machine and locale. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
