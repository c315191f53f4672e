import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { installsOf, locate } from '../../diffing/locate.js';
import { project } from '../helpers.js';

const manifest = (name: string, version: string) => ({ name, version });

test("installsOf: node_modules/NAME and every copy in pnpm's virtual store, scoped and with peers, by version", () => {
  const root = project({
    'node_modules/leaf/package.json': manifest('leaf', '2.0.0'),
    'node_modules/.pnpm/leaf@1.0.0/node_modules/leaf/package.json': manifest('leaf', '1.0.0'),
    'node_modules/.pnpm/leaf@1.1.0_peer@3.0.0/node_modules/leaf/package.json': manifest('leaf', '1.1.0'),
    'node_modules/.pnpm/leaf-extra@1.0.0/node_modules/leaf-extra/package.json': manifest('leaf-extra', '1.0.0'),
    'node_modules/.pnpm/@scope+tool@4.0.0/node_modules/@scope/tool/package.json': manifest('@scope/tool', '4.0.0'),
  });
  assert.deepEqual(Object.fromEntries(installsOf(root, 'leaf')), {
    '2.0.0': join(root, 'node_modules/leaf'),
    '1.0.0': join(root, 'node_modules/.pnpm/leaf@1.0.0/node_modules/leaf'),
    '1.1.0': join(root, 'node_modules/.pnpm/leaf@1.1.0_peer@3.0.0/node_modules/leaf'),
  });
  assert.deepEqual([...installsOf(root, '@scope/tool').keys()], ['4.0.0']);
  assert.deepEqual([...installsOf(root, '../outside').keys()], [], 'a name from a trace never reads outside the root');
});

test('locate: a frame in a transitive pnpm package is found at its version, and only at it', () => {
  const root = project({
    'node_modules/.pnpm/leaf@1.1.0/node_modules/leaf/package.json': manifest('leaf', '1.1.0'),
    'node_modules/.pnpm/leaf@1.1.0/node_modules/leaf/lib/index.js': 'exports.x = 1;\n',
  });
  const packageRoot = join(root, 'node_modules/.pnpm/leaf@1.1.0/node_modules/leaf');
  assert.deepEqual(locate({ file: 'leaf@1.1.0/lib/index.js', package: 'leaf@1.1.0' }, root), {
    file: join(packageRoot, 'lib/index.js'),
    root: packageRoot,
  });
  assert.equal(locate({ file: 'leaf@1.0.0/lib/index.js', package: 'leaf@1.0.0' }, root), null);
  assert.equal(
    locate({ file: 'leaf@1.1.0/../../../../package.json', package: 'leaf@1.1.0' }, root),
    null,
    'a path climbing out of the package is not read',
  );
});
