/**
 * pnpm-lock.yaml, lockfileVersion 9: `importers` (the projects and their direct dependencies),
 * `packages` (one per name@version: resolution, and the version when the key does not carry it)
 * and `snapshots` (one per name@version(peers): the resolved dependencies).
 */
import { LockfileError, excerpt, refuse } from './errors.js';
import type { LockedEdge, LockedImporter, RawLockfile, RawPackage } from './model.js';
import { fieldsAt, isFields, nameOf, own, stringAt, stringsAt, type Fields, type Source } from './shape.js';
import { parseYaml } from './yaml.js';

const SECTIONS = [
  ['dependencies', { dev: false, optional: false }],
  ['devDependencies', { dev: true, optional: false }],
  ['optionalDependencies', { dev: false, optional: true }],
] as const;

export function readPnpm(text: string, file: string): RawLockfile {
  const doc = parseYaml(text, file);
  const source: Source = { file, where: (container, key) => ({ line: doc.line(container, key) }) };
  const root = doc.root;
  if (!isFields(root)) refuse(file, { line: 1 }, 'expected a YAML mapping');
  const version = stringAt(source, root, 'lockfileVersion');
  if (version === null || !/^9(\.\d{1,4})?$/.test(version)) {
    const found = version === null ? 'no lockfileVersion' : `lockfileVersion ${excerpt(version)}`;
    throw new LockfileError(
      'ERR_LOCKFILE_VERSION',
      file,
      source.where(root, 'lockfileVersion'),
      `${found}: only version 9 (pnpm 9 and later) is supported`,
    );
  }
  const metadata = fieldsAt(source, root, 'packages');
  const snapshots = isFields(own(root, 'snapshots')) ? fieldsAt(source, root, 'snapshots') : metadata;
  const resolve = (name: string, reference: string): string | null => {
    if (reference.startsWith('link:')) return null;
    const key = `${name}@${reference}`;
    if (Object.hasOwn(snapshots, key)) return key;
    return Object.hasOwn(snapshots, reference) ? reference : null; // an alias: `name: real@1.0.0`
  };

  const packages: RawPackage[] = [];
  for (const key of Object.keys(snapshots)) {
    const name =
      nameOf(key) ?? refuse(file, source.where(snapshots, key), `the key ${excerpt(key)} is not name@version`);
    const peers = key.indexOf('(', name.length);
    const base = peers < 0 ? key : key.slice(0, peers);
    const meta = own(metadata, base);
    const version = (isFields(meta) ? stringAt(source, meta, 'version') : null) ?? base.slice(name.length + 1);
    const snapshot = own(snapshots, key);
    if (snapshot !== null && !isFields(snapshot))
      refuse(file, source.where(snapshots, key), `the snapshot ${excerpt(key)} must be a mapping`);
    const edges: LockedEdge[] = [];
    for (const [section, kind] of SECTIONS.filter(([section]) => section !== 'devDependencies')) {
      for (const [dep, reference] of snapshot ? stringsAt(source, snapshot, section) : []) {
        const target = resolve(dep, reference);
        if (target !== null) edges.push({ name: dep, target, ...kind });
      }
    }
    packages.push({ key, name, version, edges });
  }

  const importers: LockedImporter[] = [];
  const projects = fieldsAt(source, root, 'importers');
  for (const id of Object.keys(projects)) {
    const project = own(projects, id);
    if (!isFields(project)) refuse(file, source.where(projects, id), `the importer ${excerpt(id)} must be a mapping`);
    const edges: LockedEdge[] = [];
    for (const [section, kind] of SECTIONS) {
      const deps = fieldsAt(source, project, section);
      for (const dep of Object.keys(deps)) {
        const target = resolve(dep, referenceOf(source, deps, dep));
        if (target !== null) edges.push({ name: dep, target, ...kind });
      }
    }
    importers.push({ id: id === '.' ? '' : id, edges });
  }
  return { format: 'pnpm', version, importers, packages };
}

/** `{ specifier: ^1.0.0, version: 1.0.0 }`, or the bare version older writers used. */
function referenceOf(source: Source, deps: Fields, name: string): string {
  const value = own(deps, name);
  if (typeof value === 'string') return value;
  if (isFields(value)) {
    const version = stringAt(source, value, 'version');
    if (version !== null) return version;
  }
  return refuse(source.file, source.where(deps, name), `the dependency ${excerpt(name)} has no version`);
}
