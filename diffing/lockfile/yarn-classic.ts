/**
 * yarn.lock of yarn 1 ("classic"): one entry per resolved package, keyed by every descriptor
 * (`leaf@^1.0.0, leaf@^1.1.0`) that resolves to it. The root project has no entry: its direct
 * dependencies come from package.json; without one, the packages nothing depends on are taken
 * as the direct ones.
 */
import { LockfileError, excerpt, refuse } from './errors.js';
import { manifestDependencies } from './manifest.js';
import type { LockedEdge, RawLockfile, RawPackage } from './model.js';
import { isFields, nameOf, stringAt, stringsAt, type Fields, type Source } from './shape.js';
import { parseYarnClassic } from './yarn-classic-syntax.js';

const HEADER = '# yarn lockfile v';

export function readYarnClassic(text: string, file: string, manifest: unknown): RawLockfile {
  const header = text.slice(0, 512).indexOf(HEADER);
  if (header >= 0) {
    const end = text.indexOf('\n', header);
    const version = text.slice(header + HEADER.length, end < 0 ? undefined : end).trim();
    if (version !== '1') {
      const line = text.slice(0, header).split('\n').length;
      throw new LockfileError(
        'ERR_LOCKFILE_VERSION',
        file,
        { line },
        `yarn lockfile v${excerpt(version, 20)}: only v1 (yarn classic) and yarn 2+ lockfiles are supported`,
      );
    }
  }
  const doc = parseYarnClassic(text, file);
  const source: Source = { file, where: (container, key) => ({ line: doc.line(container, key) }) };
  const root = doc.root as Fields;

  // Entries share one object between their descriptors: group the descriptors by it.
  const descriptors = new Map<Fields, string[]>();
  for (const descriptor of Object.keys(root)) {
    const entry = root[descriptor];
    if (!isFields(entry))
      refuse(file, source.where(root, descriptor), `the entry ${excerpt(descriptor)} must be a mapping`);
    const names = descriptors.get(entry);
    if (names) names.push(descriptor);
    else descriptors.set(entry, [descriptor]);
  }
  const keyOf = new Map<string, string>();
  for (const [, names] of descriptors) for (const descriptor of names) keyOf.set(descriptor, names.join(', '));
  const edges = (entry: Fields): LockedEdge[] => {
    const found: LockedEdge[] = [];
    for (const [section, optional] of [
      ['dependencies', false],
      ['optionalDependencies', true],
    ] as const) {
      for (const [name, range] of stringsAt(source, entry, section)) {
        const target = keyOf.get(`${name}@${range}`);
        if (target !== undefined) found.push({ name, target, dev: false, optional });
      }
    }
    return found;
  };

  const packages: RawPackage[] = [];
  for (const [entry, names] of descriptors) {
    const alias =
      nameOf(names[0]!) ??
      refuse(file, source.where(root, names[0]), `the key ${excerpt(names[0]!)} is not name@range`);
    // An alias (`string-width-cjs@npm:string-width@^4.2.0`) is the package it names.
    const range = names[0]!.slice(alias.length + 1);
    const name = (range.startsWith('npm:') ? nameOf(range.slice(4)) : null) ?? alias;
    const version =
      stringAt(source, entry, 'version') ??
      refuse(file, source.where(entry), `the entry ${excerpt(names[0]!)} has no version`);
    packages.push({ key: names.join(', '), name, version, edges: edges(entry) });
  }

  const declared = manifestDependencies(manifest);
  let direct: LockedEdge[];
  if (declared.length > 0) {
    direct = declared.flatMap((dep) => {
      const target = keyOf.get(`${dep.name}@${dep.range}`);
      return target === undefined ? [] : [{ name: dep.name, target, dev: dep.dev, optional: dep.optional }];
    });
  } else {
    const required = new Set(packages.flatMap((pkg) => pkg.edges.map((edge) => edge.target)));
    direct = packages
      .filter((pkg) => !required.has(pkg.key))
      .map((pkg) => ({ name: pkg.name, target: pkg.key, dev: false, optional: false }));
  }
  return { format: 'yarn-classic', version: '1', importers: [{ id: '', edges: direct }], packages };
}
