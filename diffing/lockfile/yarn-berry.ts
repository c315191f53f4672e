/**
 * yarn.lock of yarn 2 and later ("berry"): YAML, a `__metadata` entry with the format version,
 * then one entry per resolved package keyed by the descriptors (`leaf@npm:^1.0.0`) that resolve
 * to it. Workspaces are entries with a `workspace:` resolution; they are the importers.
 */
import { LockfileError, excerpt, refuse } from './errors.js';
import { manifestDependencies } from './manifest.js';
import type { LockedEdge, LockedImporter, RawLockfile, RawPackage } from './model.js';
import { fieldsAt, isFields, nameOf, own, stringAt, stringsAt, type Fields, type Source } from './shape.js';
import { parseYaml } from './yaml.js';

/**
 * __metadata versions: 4 (yarn 2), 5 and 6 (yarn 3), 7 to 10 (yarn 4). Yarn bumps it when the
 * fields of a package entry change; the fields read here (the descriptors, `resolution`,
 * `version`, `dependencies`, `dependenciesMeta`) are the same in all of them.
 */
const VERSIONS = new Set(['4', '5', '6', '7', '8', '9', '10']);

export function readYarnBerry(text: string, file: string, manifest: unknown): RawLockfile {
  const doc = parseYaml(text, file);
  const source: Source = { file, where: (container, key) => ({ line: doc.line(container, key) }) };
  const root = doc.root;
  if (!isFields(root)) refuse(file, { line: 1 }, 'expected a YAML mapping');
  const metadata = own(root, '__metadata');
  if (!isFields(metadata)) refuse(file, source.where(root, '__metadata'), 'no "__metadata" mapping');
  const version = stringAt(source, metadata, 'version');
  if (version === null || !VERSIONS.has(version)) {
    const found = version === null ? 'no __metadata version' : `__metadata version ${excerpt(version)}`;
    throw new LockfileError(
      'ERR_LOCKFILE_VERSION',
      file,
      source.where(metadata, 'version'),
      `${found}: versions 4 to 10 (yarn 2 to 4) are supported`,
    );
  }

  const entries = new Map<string, Fields>();
  const resolutions = new Map<string, string>();
  for (const key of Object.keys(root)) {
    if (key === '__metadata') continue;
    const entry = own(root, key);
    if (!isFields(entry)) refuse(file, source.where(root, key), `the entry ${excerpt(key)} must be a mapping`);
    const resolution =
      stringAt(source, entry, 'resolution') ??
      refuse(file, source.where(entry), `the entry ${excerpt(key)} has no resolution`);
    if (entries.has(resolution))
      refuse(file, source.where(entry, 'resolution'), `a second entry resolves to ${excerpt(resolution)}`);
    entries.set(resolution, entry);
    for (const descriptor of key.split(',')) resolutions.set(descriptor.trim(), resolution);
  }
  const resolve = (name: string, range: string): string | undefined =>
    resolutions.get(`${name}@${range}`) ?? (range.includes(':') ? undefined : resolutions.get(`${name}@npm:${range}`));

  const workspaces = new Map<string, string>();
  const packages: RawPackage[] = [];
  for (const [resolution, entry] of entries) {
    const name =
      nameOf(resolution) ??
      refuse(file, source.where(entry, 'resolution'), `the resolution ${excerpt(resolution)} is not name@reference`);
    const reference = resolution.slice(name.length + 1);
    if (reference.startsWith('workspace:'))
      workspaces.set(resolution, reference === 'workspace:.' ? '' : reference.slice('workspace:'.length));
    else
      packages.push({
        key: resolution,
        name,
        version: stringAt(source, entry, 'version') ?? '',
        edges: edgesOf(source, entry, resolve),
      });
  }

  const rootEdges = new Map(manifestDependencies(manifest).map((dep) => [dep.name, dep]));
  const importers: LockedImporter[] = [];
  for (const [resolution, id] of workspaces) {
    const edges = edgesOf(source, entries.get(resolution)!, resolve).map((edge) => {
      const declared = id === '' ? rootEdges.get(edge.name) : undefined;
      return declared ? { ...edge, dev: declared.dev, optional: declared.optional || edge.optional } : edge;
    });
    importers.push({ id, edges: edges.filter((edge) => !workspaces.has(edge.target)) });
  }
  return { format: 'yarn-berry', version, importers, packages };
}

function edgesOf(
  source: Source,
  entry: Fields,
  resolve: (name: string, range: string) => string | undefined,
): LockedEdge[] {
  const meta = fieldsAt(source, entry, 'dependenciesMeta');
  const edges: LockedEdge[] = [];
  for (const [name, range] of stringsAt(source, entry, 'dependencies')) {
    const target = resolve(name, range);
    const flags = own(meta, name);
    if (target !== undefined)
      edges.push({ name, target, dev: false, optional: isFields(flags) && own(flags, 'optional') === 'true' });
  }
  return edges;
}
