/**
 * package-lock.json and npm-shrinkwrap.json, lockfileVersion 2 and 3: the `packages` map from
 * install path to package. Dependencies resolve as Node resolves them: the nearest
 * `node_modules/<name>` from the dependent's directory up. A link (`file:` directories,
 * workspaces) stands for its target. Version 1 (npm 5 and 6) has no install paths: refused.
 */
import { LockfileError, excerpt, refuse } from './errors.js';
import { parseJson } from './json.js';
import type { LockedEdge, LockedImporter, RawLockfile, RawPackage } from './model.js';
import { fieldsAt, isFields, own, stringAt, stringsAt, type Fields, type Source } from './shape.js';
import { lineOf } from './text.js';

/** PATH_MAX on Linux: no install path on disk is longer, and it bounds every walk up a path. */
const MAX_PATH = 4096;
const NODE_MODULES = 'node_modules/';

export function readNpm(text: string, file: string): RawLockfile {
  const doc = parseJson(text, file);
  const source: Source = {
    file,
    where: (_container, key) => lineOf(text, key === undefined ? '{' : `${JSON.stringify(key)}:`),
  };
  if (!isFields(doc)) refuse(file, { line: 1 }, 'expected a JSON object');
  const version = own(doc, 'lockfileVersion');
  if (version === 1) {
    throw new LockfileError(
      'ERR_LOCKFILE_VERSION',
      file,
      source.where(doc, 'lockfileVersion'),
      'lockfileVersion 1 (npm 5 and 6) is not supported: run `npm install` with npm 7 or later to upgrade it',
    );
  }
  if (version !== 2 && version !== 3) {
    // Never JSON.stringify an untrusted value: a deeply nested one overflows the stack.
    const shown =
      typeof version === 'number' || typeof version === 'string'
        ? excerpt(String(version))
        : Array.isArray(version)
          ? 'a list'
          : `a ${version === null ? 'null' : typeof version}`;
    const found = version === undefined ? 'no lockfileVersion' : `lockfileVersion ${shown}`;
    throw new LockfileError(
      'ERR_LOCKFILE_VERSION',
      file,
      source.where(doc, 'lockfileVersion'),
      `${found}: only versions 2 and 3 are supported`,
    );
  }
  if (!isFields(own(doc, 'packages'))) refuse(file, source.where(doc, 'packages'), 'no "packages" mapping');
  const entries = fieldsAt(source, doc, 'packages');
  const root = own(entries, '');
  if (!isFields(root)) refuse(file, source.where(entries, ''), 'no root entry "" in "packages"');

  const tree = new Tree(source, entries);
  const packages: RawPackage[] = [];
  for (const [path, entry] of tree.nodes) {
    const version = stringAt(source, entry, 'version') ?? '';
    packages.push({ key: path, name: tree.nameOf(path, entry), version, edges: tree.edges(path, entry, false) });
  }
  const importers: LockedImporter[] = [{ id: '', edges: tree.edges('', root, true) }];
  // Workspaces no importer depends on are importers themselves; those depended on stay packages.
  const byKey = new Map(packages.map((pkg) => [pkg.key, pkg]));
  const reached = new Set<string>();
  reach(importers[0]!, byKey, reached);
  for (const path of [...tree.local].sort()) {
    if (reached.has(path)) continue;
    const importer = { id: path, edges: tree.edges(path, tree.nodes.get(path)!, true) };
    importers.push(importer);
    reach(importer, byKey, reached);
  }
  const isImporter = new Set(importers.map((importer) => importer.id));
  return {
    format: 'npm',
    version: String(version),
    importers,
    packages: packages.filter((pkg) => !isImporter.has(pkg.key)),
  };
}

class Tree {
  /** install path to entry, links left out */
  readonly nodes = new Map<string, Fields>();
  /** local directories (link targets, workspaces): paths outside node_modules */
  readonly local: string[] = [];
  private readonly links = new Map<string, string>();
  private readonly linkNames = new Map<string, string>();
  /** directory to the packages installed in its node_modules, by name */
  private readonly children = new Map<string, Map<string, string>>();
  private readonly parents = new Map<string, string>();

  constructor(
    private readonly source: Source,
    entries: Fields,
  ) {
    for (const path of Object.keys(entries)) {
      if (path === '') continue;
      const entry = entries[path];
      if (!isFields(entry))
        refuse(source.file, source.where(entries, path), `the entry ${excerpt(path)} must be an object`);
      if (path.length > MAX_PATH)
        refuse(source.file, source.where(entries, path), `an install path longer than ${MAX_PATH} characters`);
      const at = path.lastIndexOf(`/${NODE_MODULES}`);
      const [dir, name] =
        at >= 0
          ? [path.slice(0, at), path.slice(at + NODE_MODULES.length + 1)]
          : path.startsWith(NODE_MODULES)
            ? ['', path.slice(NODE_MODULES.length)]
            : [null, null];
      if (dir !== null) {
        if (!this.children.has(dir)) this.children.set(dir, new Map());
        this.children.get(dir)!.set(name!, path);
      }
      if (own(entry, 'link') === true) {
        const target =
          stringAt(source, entry, 'resolved') ??
          refuse(source.file, source.where(entries, path), `the link ${excerpt(path)} has no "resolved" target`);
        this.links.set(path, target);
        if (name !== null && !this.linkNames.has(target)) this.linkNames.set(target, name);
        continue;
      }
      this.nodes.set(path, entry);
      if (dir === null) this.local.push(path);
    }
  }

  nameOf(path: string, entry: Fields): string {
    const declared = stringAt(this.source, entry, 'name');
    if (declared) return declared;
    const at = path.lastIndexOf(NODE_MODULES);
    return at >= 0
      ? path.slice(at + NODE_MODULES.length)
      : (this.linkNames.get(path) ?? path.slice(path.lastIndexOf('/') + 1));
  }

  /** The edges of the package at `path`; an importer's devDependencies count, a package's do not. */
  edges(path: string, entry: Fields, importer: boolean): LockedEdge[] {
    const kinds = new Map<string, { dev: boolean; optional: boolean }>();
    const peerMeta = fieldsAt(this.source, entry, 'peerDependenciesMeta');
    for (const [name] of stringsAt(this.source, entry, 'peerDependencies')) {
      const meta = own(peerMeta, name);
      kinds.set(name, { dev: false, optional: isFields(meta) && own(meta, 'optional') === true });
    }
    if (importer)
      for (const [name] of stringsAt(this.source, entry, 'devDependencies'))
        kinds.set(name, { dev: true, optional: false });
    for (const [name] of stringsAt(this.source, entry, 'dependencies'))
      kinds.set(name, { dev: false, optional: false });
    for (const [name] of stringsAt(this.source, entry, 'optionalDependencies'))
      kinds.set(name, { dev: false, optional: true });
    const edges: LockedEdge[] = [];
    for (const [name, kind] of kinds) {
      const target = this.resolve(path, name);
      if (target !== null) edges.push({ name, target, ...kind });
    }
    return edges;
  }

  /** The nearest `node_modules/<name>` from `from` up to the root, a link replaced by its target. */
  private resolve(from: string, name: string): string | null {
    for (let dir = from; ; dir = this.parent(dir)) {
      const found = this.children.get(dir)?.get(name);
      if (found !== undefined) {
        const target = this.links.get(found) ?? found;
        return this.nodes.has(target) ? target : null;
      }
      if (dir === '') return null;
    }
  }

  /** Memoized, so walking up a path costs one lookup per directory. */
  private parent(dir: string): string {
    let parent = this.parents.get(dir);
    if (parent === undefined) {
      parent = dir.slice(0, Math.max(0, dir.lastIndexOf('/')));
      this.parents.set(dir, parent);
    }
    return parent;
  }
}

/** Adds to `seen` what `importer` reaches. */
function reach(importer: LockedImporter, byKey: ReadonlyMap<string, RawPackage>, seen: Set<string>): void {
  const stack = importer.edges.map((edge) => edge.target).filter((key) => !seen.has(key));
  for (const key of stack) seen.add(key);
  while (stack.length > 0) {
    for (const edge of byKey.get(stack.pop()!)?.edges ?? []) {
      if (!seen.has(edge.target)) {
        seen.add(edge.target);
        stack.push(edge.target);
      }
    }
  }
}
