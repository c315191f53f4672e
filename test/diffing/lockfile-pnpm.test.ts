/** pnpm-lock.yaml as pnpm 9 writes it, by hand: importers, peers, aliases, links, optional and dev dependencies. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseLockfile } from '../../diffing/lockfile/index.js';
import { SHA, summary } from '../lockfile-fixtures.js';

const PNPM = `lockfileVersion: '9.0'

settings:
  autoInstallPeers: true
  excludeLinksFromLockfile: false

importers:

  .:
    dependencies:
      react:
        specifier: ^18.2.0
        version: 18.2.0
      react-dom:
        specifier: ^18.2.0
        version: 18.2.0(react@18.2.0)
      string-width-cjs:
        specifier: npm:string-width@^4.2.0
        version: string-width@4.2.3
      tool:
        specifier: workspace:*
        version: link:packages/tool
    devDependencies:
      '@types/leaf':
        specifier: ~1.0.0
        version: 1.0.2
    optionalDependencies:
      fsevents:
        specifier: ^2.3.3
        version: 2.3.3

  packages/tool:
    dependencies:
      leaf:
        specifier: ^1.0.0
        version: 1.0.0

packages:

  '@types/leaf@1.0.2':
    resolution: {integrity: ${SHA}}

  fsevents@2.3.3:
    resolution: {integrity: ${SHA}}
    engines: {node: ^8.16.0 || ^10.6.0 || >=11.0.0}
    os: [darwin]

  js-tokens@4.0.0:
    resolution: {integrity: ${SHA}}

  leaf@1.0.0:
    resolution: {integrity: ${SHA}}
    deprecated: Use your platform's native performance.now() instead.

  loose-envify@1.4.0:
    resolution: {integrity: ${SHA}}
    hasBin: true

  react-dom@18.2.0:
    resolution: {integrity: ${SHA}}
    peerDependencies:
      react: ^18.2.0

  react@18.2.0:
    resolution: {integrity: ${SHA}}
    engines: {node: '>=0.10.0'}

  scheduler@0.23.0:
    resolution: {integrity: ${SHA}}

  string-width@4.2.3:
    resolution: {integrity: ${SHA}}
    engines: {node: '>=8'}

snapshots:

  '@types/leaf@1.0.2': {}

  fsevents@2.3.3:
    optional: true

  js-tokens@4.0.0: {}

  leaf@1.0.0: {}

  loose-envify@1.4.0:
    dependencies:
      js-tokens: 4.0.0

  react-dom@18.2.0(react@18.2.0):
    dependencies:
      loose-envify: 1.4.0
      react: 18.2.0
      scheduler: 0.23.0

  react@18.2.0:
    dependencies:
      loose-envify: 1.4.0

  scheduler@0.23.0:
    dependencies:
      loose-envify: 1.4.0

  string-width@4.2.3: {}
`;

test('pnpm 9: importers, peers in keys, an alias, a workspace link, optional and dev dependencies', () => {
  const lock = parseLockfile(PNPM, 'pnpm-lock.yaml');
  assert.equal(lock.version, '9.0');
  assert.ok(lock.packages.has('react-dom@18.2.0(react@18.2.0)'));
  assert.deepEqual(summary(lock), {
    packages: {
      '@types/leaf@1.0.2': [true, true, false, '@types/leaf'],
      'fsevents@2.3.3': [true, false, true, 'fsevents'],
      'js-tokens@4.0.0': [false, false, false, 'react > loose-envify > js-tokens'],
      'leaf@1.0.0': [true, false, false, 'leaf'],
      'loose-envify@1.4.0': [false, false, false, 'react > loose-envify'],
      'react-dom@18.2.0': [true, false, false, 'react-dom'],
      'react@18.2.0': [true, false, false, 'react'],
      'scheduler@0.23.0': [false, false, false, 'react-dom > scheduler'],
      'string-width@4.2.3': [true, false, false, 'string-width'],
    },
    importers: { '': ['@types/leaf', 'fsevents', 'react', 'react-dom', 'string-width-cjs'], 'packages/tool': ['leaf'] },
  });
});
