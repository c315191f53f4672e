/** The one model every lockfile format is read into. */

export type LockfileFormat = 'npm' | 'pnpm' | 'yarn-classic' | 'yarn-berry';

/** A resolved dependency: who is required under which name, and how. */
export interface LockedEdge {
  /** the name the dependent requires (an alias differs from the package's own name) */
  readonly name: string;
  /** the `key` of the package it resolves to */
  readonly target: string;
  /** from an importer's devDependencies */
  readonly dev: boolean;
  /** from optionalDependencies (or an optional peer) */
  readonly optional: boolean;
}

/** A project of the lockfile: the root, or a workspace. Its edges are the direct dependencies. */
export interface LockedImporter {
  /** '' for the root, else the workspace's directory relative to the root */
  readonly id: string;
  readonly edges: readonly LockedEdge[];
}

/** One installed package. */
export interface LockedPackage {
  /**
   * Its identity in this lockfile: the install path for npm (`node_modules/mid/node_modules/leaf`),
   * the snapshot key for pnpm (`leaf@1.0.0`), the entry's descriptors for yarn classic
   * (`leaf@^1.0.0, leaf@^1.1.0`), the resolution for yarn berry (`leaf@npm:1.0.0`).
   */
  readonly key: string;
  readonly name: string;
  readonly version: string;
  readonly edges: readonly LockedEdge[];
  /** an importer depends on it */
  readonly direct: boolean;
  /** reachable only through importers' devDependencies */
  readonly dev: boolean;
  /** reachable only through an optional edge */
  readonly optional: boolean;
  /**
   * The shortest chain of package names from a direct dependency to this package, itself
   * included: `['app-dep', 'mid', 'leaf']` (ties broken by name). A package no importer reaches
   * has `[name]`. Computed when read, so a long dependency chain costs nothing until asked.
   */
  readonly path: readonly string[];
}

export interface Lockfile {
  readonly file: string;
  readonly format: LockfileFormat;
  /** the format's own version: `3` (npm), `9.0` (pnpm), `1` (yarn classic), `10` (yarn berry) */
  readonly version: string;
  /** the root first, then workspaces by id */
  readonly importers: readonly LockedImporter[];
  /** by key, in key order */
  readonly packages: ReadonlyMap<string, LockedPackage>;
}

/** What a format reader produces; `finish` adds direct, dev, optional and path. */
export interface RawLockfile {
  readonly format: LockfileFormat;
  readonly version: string;
  readonly importers: readonly LockedImporter[];
  readonly packages: readonly RawPackage[];
}

export interface RawPackage {
  readonly key: string;
  readonly name: string;
  readonly version: string;
  readonly edges: readonly LockedEdge[];
}
