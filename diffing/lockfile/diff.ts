/**
 * Which packages a lockfile change moved, and from what to what.
 *
 * A change is seen from the dependents: for each dependency edge in the head lockfile (an
 * importer or a package requiring a name), the versions the same dependent resolved that name to
 * in the base: the same importer; the same package at the same version, else any version of it.
 * A head version outside those is a change from the nearest of them (the greatest below it, else
 * the least above). This pairs versions by where they are used, so nested installs of one name
 * (leaf 1.x under one package, leaf 2.x under another) are compared each with its own, in every
 * format alike, hoisting or not. An edge with no base counterpart brings an added version; a base
 * version gone from head that no change started from is removed.
 */
import { classify, compareVersions, type ChangeKind } from './classify.js';
import { compareText } from './graph.js';
import type { LockedPackage, Lockfile } from './model.js';
import { edges, release, Resolutions, type Parent } from './resolutions.js';

export interface LockfileChange {
  readonly name: string;
  /** the version in the base lockfile; null for an added package */
  readonly from: string | null;
  /** the version in the head lockfile; null for a removed package */
  readonly to: string | null;
  readonly kind: ChangeKind;
  /** `to` is outside `^from` (see classify): a major, a 0.x minor, a downgrade... */
  readonly breaking: boolean;
  /** an importer (the project, a workspace) requires this version directly */
  readonly direct: boolean;
  /** every install of this version is reachable only through devDependencies */
  readonly dev: boolean;
  /** every install of this version is reachable only through optional dependencies */
  readonly optional: boolean;
  /** the shortest chain of package names from a direct dependency: ['app-dep', 'mid', 'leaf'] */
  readonly path: readonly string[];
  /** the package's key in the head lockfile (the base one when removed): which install it is */
  readonly key: string;
}

/** Every version change between two lockfiles (of any formats), once each, ordered by name, from, to. */
export function diffLockfiles(base: Lockfile, head: Lockfile): LockfileChange[] {
  const before = new Resolutions(base);
  const drafts = new Map<string, Draft>();
  // Versions some dependent moved from or to: not also removed or added because of another one.
  const movedFrom = new Set<string>();
  const movedTo = new Set<string>();
  const record = (
    name: string,
    from: string | null,
    to: string | null,
    pkg: LockedPackage,
    parent: Parent | null,
    direct: boolean,
  ) => {
    const path = parent === null ? pkg.path : 'importer' in parent ? [pkg.name] : [...parent.path, pkg.name];
    const id = JSON.stringify([name, from, to]);
    if (from !== null && to !== null) {
      movedFrom.add(release(name, from));
      movedTo.add(release(name, to));
    }
    const draft = drafts.get(id);
    if (!draft) drafts.set(id, { name, from, to, pkg, path, direct, dev: pkg.dev, optional: pkg.optional });
    else {
      draft.direct ||= direct;
      draft.dev &&= pkg.dev;
      draft.optional &&= pkg.optional;
      if (comparePaths(path, draft.path) < 0) Object.assign(draft, { pkg, path });
    }
  };

  for (const [parent, target] of edges(head)) {
    const previous = before.of(parent, target.name);
    const direct = 'importer' in parent;
    if (previous.size === 0) {
      if (!before.has(target.name, target.version)) record(target.name, null, target.version, target, parent, direct);
    } else if (!previous.has(target.version))
      record(target.name, nearest(previous, target.version), target.version, target, parent, direct);
  }
  // Versions no edge explains: packages nothing depends on, and versions gone from head.
  const after = new Resolutions(head);
  for (const pkg of head.packages.values()) {
    if (!before.has(pkg.name, pkg.version)) record(pkg.name, null, pkg.version, pkg, null, pkg.direct);
  }
  for (const pkg of base.packages.values()) {
    if (!after.has(pkg.name, pkg.version) && !movedFrom.has(release(pkg.name, pkg.version)))
      record(pkg.name, pkg.version, null, pkg, null, pkg.direct);
  }

  const changes: LockfileChange[] = [];
  for (const draft of drafts.values()) {
    if (draft.from === null && movedTo.has(release(draft.name, draft.to!))) continue;
    const { name, from, to, direct, dev, optional, path } = draft;
    changes.push({ name, from, to, ...classify(from, to), direct, dev, optional, path, key: draft.pkg.key });
  }
  return changes.sort(
    (a, b) =>
      compareText(a.name, b.name) ||
      compareNullable(a.from, b.from) ||
      compareNullable(a.to, b.to) ||
      comparePaths(a.path, b.path),
  );
}

interface Draft {
  readonly name: string;
  readonly from: string | null;
  readonly to: string | null;
  pkg: LockedPackage;
  path: readonly string[];
  direct: boolean;
  dev: boolean;
  optional: boolean;
}

/** The greatest of `versions` below `version`, else the least above it. */
function nearest(versions: ReadonlySet<string>, version: string): string {
  const sorted = [...versions].sort(compareVersions);
  const below = sorted.filter((candidate) => compareVersions(candidate, version) < 0);
  return below.at(-1) ?? sorted[0]!;
}

function compareNullable(a: string | null, b: string | null): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  return compareVersions(a, b);
}

function comparePaths(a: readonly string[], b: readonly string[]): number {
  if (a.length !== b.length) return a.length - b.length;
  for (let i = 0; i < a.length; i++) {
    const order = compareText(a[i]!, b[i]!);
    if (order !== 0) return order;
  }
  return 0;
}
