/**
 * Lockfile fixtures: one dependency tree, described in npm's install layout, written in each real
 * format (package-lock.json v2 and v3, pnpm-lock.yaml v9, yarn.lock classic and berry), the way
 * each package manager writes it: its field order, quoting, header and blank lines.
 */
import { createHash } from 'node:crypto';
import type { Lockfile } from '../diffing/lockfile/index.js';

export interface Install {
  readonly version: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  /** written as npm's `dev: true`; the reader computes dev-ness itself, for every format */
  readonly dev?: boolean;
}

export interface Tree {
  readonly dependencies: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** by npm install path: `node_modules/other/node_modules/leaf` */
  readonly installs: Readonly<Record<string, Install>>;
}

export type FixtureFormat = 'npm-v2' | 'npm-v3' | 'pnpm' | 'yarn-classic' | 'yarn-berry';
export const FORMATS: readonly FixtureFormat[] = ['npm-v2', 'npm-v3', 'pnpm', 'yarn-classic', 'yarn-berry'];
export const FILE_NAMES: Readonly<Record<FixtureFormat, string>> = {
  'npm-v2': 'package-lock.json',
  'npm-v3': 'package-lock.json',
  pnpm: 'pnpm-lock.yaml',
  'yarn-classic': 'yarn.lock',
  'yarn-berry': 'yarn.lock',
};

/** A small project of every kind of install: app-dep → mid → leaf, a second leaf nested under other, a 0.x and a dev dependency: app-dep → mid → leaf, and a second leaf nested under other. */
export const SAMPLE: Tree = {
  dependencies: { 'app-dep': '^1.0.0', other: '^1.0.0', zero: '^0.3.0' },
  devDependencies: { devtool: '^1.0.0' },
  installs: {
    [nm('app-dep')]: { version: '1.0.0', dependencies: { mid: '^1.0.0' } },
    [nm('mid')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
    [nm('leaf')]: { version: '1.0.0' },
    [nm('other')]: { version: '1.0.0', dependencies: { leaf: '^2.0.0' } },
    [nm('other', 'leaf')]: { version: '2.0.0' },
    [nm('zero')]: { version: '0.3.1' },
    [nm('devtool')]: { version: '1.0.0', dev: true },
  },
};

/** `nm('other', 'leaf')` is `node_modules/other/node_modules/leaf`. */
export function nm(...names: string[]): string {
  return names.map((name) => `node_modules/${name}`).join('/');
}

export function manifest(tree: Tree): object {
  return {
    name: 'fixture-app',
    version: '1.0.0',
    private: true,
    dependencies: tree.dependencies,
    ...(tree.devDependencies ? { devDependencies: tree.devDependencies } : {}),
  };
}

export function lockfileText(tree: Tree, format: FixtureFormat): string {
  switch (format) {
    case 'npm-v2':
      return npmLock(tree, 2);
    case 'npm-v3':
      return npmLock(tree, 3);
    case 'pnpm':
      return pnpmLock(tree);
    case 'yarn-classic':
      return yarnClassicLock(tree);
    case 'yarn-berry':
      return yarnBerryLock(tree);
  }
}

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

function rootDeps(tree: Tree): [string, string, boolean][] {
  const deps: [string, string, boolean][] = Object.entries(tree.dependencies).map(([name, range]) => [
    name,
    range,
    false,
  ]);
  for (const [name, range] of Object.entries(tree.devDependencies ?? {})) deps.push([name, range, true]);
  return deps.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

/** Node's lookup: the nearest node_modules/<name> from `from` up. */
function lookup(tree: Tree, from: string, name: string): string {
  for (let dir = from; ; dir = dir.slice(0, Math.max(0, dir.lastIndexOf('/node_modules/')))) {
    const path = dir === '' ? nm(name) : `${dir}/node_modules/${name}`;
    if (tree.installs[path]) return path;
    if (dir === '') throw new Error(`fixture: ${name} is not installed for ${from || 'the root'}`);
  }
}

/** Each name@version once, with its requirements resolved to versions (the same everywhere). */
function releases(tree: Tree): Map<string, { name: string; version: string; deps: [string, string, string][] }> {
  const found = new Map<string, { name: string; version: string; deps: [string, string, string][] }>();
  for (const path of Object.keys(tree.installs).sort()) {
    const install = tree.installs[path]!;
    const name = nameOf(path);
    const deps = Object.entries(install.dependencies ?? {}).sort(([a], [b]) => (a < b ? -1 : 1));
    const resolved = deps.map(([dep, range]): [string, string, string] => [
      dep,
      range,
      tree.installs[lookup(tree, path, dep)]!.version,
    ]);
    const id = `${name}@${install.version}`;
    const seen = found.get(id);
    if (seen && JSON.stringify(seen.deps) !== JSON.stringify(resolved))
      throw new Error(`fixture: ${id} resolves its dependencies two ways`);
    found.set(id, { name, version: install.version, deps: resolved });
  }
  return new Map([...found].sort(([a], [b]) => (a < b ? -1 : 1)));
}

function digest(algorithm: string, text: string, encoding: 'hex' | 'base64'): string {
  return createHash(algorithm).update(text).digest(encoding);
}

function tarball(name: string, version: string, registry: string): string {
  return `${registry}/${name}/-/${name.slice(name.indexOf('/') + 1)}-${version}.tgz`;
}

// --- npm: JSON with two-space indentation, install paths sorted, a trailing newline.

function npmLock(tree: Tree, lockfileVersion: 2 | 3): string {
  const packages: Record<string, object> = {
    '': {
      name: 'fixture-app',
      version: '1.0.0',
      dependencies: tree.dependencies,
      ...(tree.devDependencies ? { devDependencies: tree.devDependencies } : {}),
    },
  };
  const entry = (path: string) => {
    const install = tree.installs[path]!;
    const name = nameOf(path);
    return {
      version: install.version,
      resolved: tarball(name, install.version, 'https://registry.npmjs.org'),
      integrity: `sha512-${digest('sha512', `${name}@${install.version}`, 'base64')}`,
      ...(install.dev ? { dev: true } : {}),
    };
  };
  const paths = Object.keys(tree.installs).sort();
  for (const path of paths) {
    const deps = tree.installs[path]!.dependencies;
    packages[path] = { ...entry(path), ...(deps && Object.keys(deps).length > 0 ? { dependencies: deps } : {}) };
  }
  const lock: Record<string, unknown> = {
    name: 'fixture-app',
    version: '1.0.0',
    lockfileVersion,
    requires: true,
    packages,
  };
  if (lockfileVersion === 2) {
    // The npm 6 view kept for old clients: nested by install path, `requires` for ranges.
    const nest = (parent: string): Record<string, object> | undefined => {
      const prefix = parent === '' ? 'node_modules/' : `${parent}/node_modules/`;
      const children = paths.filter(
        (path) => path.startsWith(prefix) && !path.slice(prefix.length).includes('/node_modules/'),
      );
      if (children.length === 0) return undefined;
      return Object.fromEntries(
        children.map((path) => {
          const deps = tree.installs[path]!.dependencies;
          const nested = nest(path);
          return [
            nameOf(path),
            {
              ...entry(path),
              ...(deps && Object.keys(deps).length > 0 ? { requires: deps } : {}),
              ...(nested ? { dependencies: nested } : {}),
            },
          ];
        }),
      );
    };
    lock.dependencies = nest('') ?? {};
  }
  return JSON.stringify(lock, null, 2) + '\n';
}

// --- pnpm: YAML as pnpm 9 writes it; single quotes where YAML needs them.

function yamlPlain(text: string): string {
  return /^[@'"!&*|>%#{[,?:`-]|: | #|^(true|false|null|~|[0-9]+(\.[0-9]+)?)$/.test(text)
    ? `'${text.replaceAll("'", "''")}'`
    : text;
}

function pnpmLock(tree: Tree): string {
  const all = releases(tree);
  const lines = [
    "lockfileVersion: '9.0'",
    '',
    'settings:',
    '  autoInstallPeers: true',
    '  excludeLinksFromLockfile: false',
    '',
    'importers:',
    '',
    '  .:',
  ];
  for (const [section, dev] of [
    ['dependencies', false],
    ['devDependencies', true],
  ] as const) {
    const deps = rootDeps(tree).filter(([, , isDev]) => isDev === dev);
    if (deps.length === 0) continue;
    lines.push(`    ${section}:`);
    for (const [name, range] of deps) {
      lines.push(
        `      ${yamlPlain(name)}:`,
        `        specifier: ${yamlPlain(range)}`,
        `        version: ${yamlPlain(tree.installs[nm(name)]!.version)}`,
      );
    }
  }
  lines.push('', 'packages:', '');
  for (const [id, release] of all) {
    lines.push(
      `  ${yamlPlain(id)}:`,
      `    resolution: {integrity: sha512-${digest('sha512', `${release.name}@${release.version}`, 'base64')}}`,
      '',
    );
  }
  lines.push('snapshots:', '');
  for (const [id, release] of all) {
    if (release.deps.length === 0) lines.push(`  ${yamlPlain(id)}: {}`, '');
    else
      lines.push(
        `  ${yamlPlain(id)}:`,
        '    dependencies:',
        ...release.deps.map(([dep, , version]) => `      ${yamlPlain(dep)}: ${yamlPlain(version)}`),
        '',
      );
  }
  return lines.join('\n');
}

// --- yarn classic: yarn 1's own syntax and quoting (lockfile/stringify.js `maybeWrap`).

function maybeWrap(text: string): string {
  const wrap =
    text.startsWith('true') ||
    text.startsWith('false') ||
    /[:\s\n\\",[\]]/.test(text) ||
    /^[0-9]/.test(text) ||
    !/^[a-zA-Z]/.test(text);
  return wrap ? JSON.stringify(text) : text;
}

/** Every descriptor (name@range) the tree uses, by the name@version it resolves to. */
function descriptors(tree: Tree, protocol: string): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const resolved = new Map<string, string>();
  const note = (name: string, range: string, version: string) => {
    const id = `${name}@${version}`;
    const descriptor = `${name}@${range}`;
    if ((resolved.get(descriptor) ?? version) !== version)
      throw new Error(`fixture: ${descriptor} resolves to two versions`);
    resolved.set(descriptor, version);
    if (!found.has(id)) found.set(id, new Set());
    found.get(id)!.add(`${name}@${protocol}${range}`);
  };
  for (const [name, range] of rootDeps(tree)) note(name, range, tree.installs[nm(name)]!.version);
  for (const release of releases(tree).values())
    for (const [dep, range, version] of release.deps) note(dep, range, version);
  for (const id of releases(tree).keys())
    if (!found.has(id)) throw new Error(`fixture: ${id} is installed but nothing requires it`);
  return found;
}

function yarnClassicLock(tree: Tree): string {
  const uses = descriptors(tree, '');
  const entries = [...releases(tree)].map(([id, release]) => {
    const keys = [...uses.get(id)!].sort();
    const lines = [
      `${keys.map(maybeWrap).join(', ')}:`,
      `  version ${maybeWrap(release.version)}`,
      `  resolved ${maybeWrap(`${tarball(release.name, release.version, 'https://registry.yarnpkg.com')}#${digest('sha1', id, 'hex')}`)}`,
      `  integrity sha512-${digest('sha512', id, 'base64')}`,
    ];
    if (release.deps.length > 0)
      lines.push('  dependencies:', ...release.deps.map(([dep, range]) => `    ${maybeWrap(dep)} ${maybeWrap(range)}`));
    return { key: keys.map(maybeWrap).join(', '), text: lines.join('\n') };
  });
  entries.sort((a, b) => (a.key < b.key ? -1 : 1));
  return [
    '# THIS IS AN AUTOGENERATED FILE. DO NOT EDIT THIS FILE DIRECTLY.',
    '# yarn lockfile v1',
    '',
    '',
    entries.map((entry) => entry.text).join('\n\n'),
    '',
  ].join('\n');
}

// --- yarn berry: YAML as yarn 4 writes it (lockfile version 10, cache key 10c0).

function berryQuote(text: string): string {
  return /[:#,[\]{}]|^[-?@&*!|>'"%`\s]|\s$/.test(text) ? JSON.stringify(text) : text;
}

function yarnBerryLock(tree: Tree): string {
  const uses = descriptors(tree, 'npm:');
  const entries: { key: string; lines: string[] }[] = [...releases(tree)].map(([id, release]) => {
    const key = [...uses.get(id)!].sort().join(', ');
    const lines = [
      `${JSON.stringify(key)}:`,
      `  version: ${release.version}`,
      `  resolution: "${release.name}@npm:${release.version}"`,
    ];
    if (release.deps.length > 0)
      lines.push('  dependencies:', ...release.deps.map(([dep, range]) => `    ${berryQuote(dep)}: "npm:${range}"`));
    lines.push(`  checksum: 10c0/${digest('sha512', id, 'hex')}`, '  languageName: node', '  linkType: hard');
    return { key, lines };
  });
  const workspace = [
    '"fixture-app@workspace:.":',
    '  version: 0.0.0-use.local',
    '  resolution: "fixture-app@workspace:."',
    '  dependencies:',
  ];
  for (const [name, range] of rootDeps(tree)) workspace.push(`    ${berryQuote(name)}: "npm:${range}"`);
  workspace.push('  languageName: unknown', '  linkType: soft');
  entries.push({ key: 'fixture-app@workspace:.', lines: workspace });
  entries.sort((a, b) => (a.key < b.key ? -1 : 1));
  const header = [
    '# This file is generated by running "yarn install" inside your project.',
    '# Manual changes might be lost - proceed with caution!',
    '',
    '__metadata:',
    '  version: 10',
    '  cacheKey: 10c0',
    '',
  ];
  return [...header, entries.map((entry) => entry.lines.join('\n')).join('\n\n'), ''].join('\n');
}

/** A made-up sha512 integrity, for lockfiles written by hand. */
export const SHA = 'sha512-' + 'A'.repeat(86) + '==';

/** name@version → [direct, dev, optional, path] for each package (the first key of one), and the importers' edges. */
export function summary(lock: Lockfile) {
  const packages: Record<string, [boolean, boolean, boolean, string]> = {};
  for (const pkg of lock.packages.values())
    packages[`${pkg.name}@${pkg.version}`] ??= [pkg.direct, pkg.dev, pkg.optional, pkg.path.join(' > ')];
  const importers = Object.fromEntries(
    lock.importers.map((importer) => [importer.id, importer.edges.map((edge) => edge.name)]),
  );
  return { packages, importers };
}
