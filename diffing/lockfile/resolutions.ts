/** Who requires what in a lockfile, indexed so the other lockfile's dependents find their counterparts. */
import type { LockedPackage, Lockfile } from './model.js';

/** A dependent: an importer by id, or a package. */
export type Parent = { readonly importer: string } | LockedPackage;

/** Every edge of a lockfile: its dependent and the package it resolves to. */
export function* edges(lock: Lockfile): Generator<[Parent, LockedPackage]> {
  for (const importer of lock.importers) {
    const parent = { importer: importer.id };
    for (const edge of importer.edges) yield [parent, lock.packages.get(edge.target)!];
  }
  for (const pkg of lock.packages.values()) {
    for (const edge of pkg.edges) yield [pkg, lock.packages.get(edge.target)!];
  }
}

/** What each dependent of one lockfile resolves each name to, indexed for the other's edges. */
export class Resolutions {
  private readonly byImporter = new Map<string, Map<string, Set<string>>>();
  private readonly byRelease = new Map<string, Map<string, Set<string>>>();
  private readonly byName = new Map<string, Map<string, Set<string>>>();
  private readonly versions = new Set<string>();

  constructor(lock: Lockfile) {
    for (const pkg of lock.packages.values()) this.versions.add(release(pkg.name, pkg.version));
    for (const [parent, target] of edges(lock)) {
      if ('importer' in parent) add(this.byImporter, parent.importer, target);
      else {
        add(this.byRelease, release(parent.name, parent.version), target);
        add(this.byName, parent.name, target);
      }
    }
  }

  has(name: string, version: string): boolean {
    return this.versions.has(release(name, version));
  }

  /** The versions of `name` the counterpart of `parent` resolved; empty when it had no such edge. */
  of(parent: Parent, name: string): ReadonlySet<string> {
    const resolved =
      'importer' in parent
        ? this.byImporter.get(parent.importer)
        : (this.byRelease.get(release(parent.name, parent.version)) ?? this.byName.get(parent.name));
    return resolved?.get(name) ?? NONE;
  }
}

const NONE: ReadonlySet<string> = new Set();

function add(index: Map<string, Map<string, Set<string>>>, key: string, target: LockedPackage): void {
  let names = index.get(key);
  if (!names) index.set(key, (names = new Map()));
  let versions = names.get(target.name);
  if (!versions) names.set(target.name, (versions = new Set()));
  versions.add(target.version);
}

export function release(name: string, version: string): string {
  return `${name}\0${version}`;
}
