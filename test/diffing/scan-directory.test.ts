import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { scanDirectory, ScanDirectoryError, type ScanResult } from '../../diffing/scan/index.js';
import { project } from '../helpers.js';

const sites = (result: ScanResult) =>
  result.sites.map((site) => `${site.api} ${site.file}:${site.line}:${site.column}`);

test('a package: its JavaScript files in byte order, paths relative to its root, named by its manifest', () => {
  const dir = project({
    'package.json': { name: 'clocky', version: '1.2.3' },
    'index.js': 'module.exports = () => Date.now();\n',
    'lib/a.cjs': "exports.id = () => require('crypto').randomUUID();\n",
    'lib/B.mjs': 'export const draw = () => Math.random();\n',
    'lib/types.d.ts': 'export declare const x: number; // Date.now()\n',
    'README.md': 'Math.random()\n',
  });
  const result = scanDirectory(dir);
  assert.equal(result.package, 'clocky@1.2.3');
  assert.deepEqual(sites(result), [
    'Date.now index.js:1:29',
    'Math.random lib/B.mjs:1:32',
    'crypto.randomUUID lib/a.cjs:1:38',
  ]);
  assert.equal(result.files, 3);
  assert.deepEqual([result.errors, result.skipped], [[], []]);
});

test('nested node_modules, tests, benchmarks, examples, dot-directories and links are not the package', () => {
  const dir = project({
    'index.js': 'setTimeout(run);\n',
    'node_modules/dep/index.js': 'Math.random();\n',
    'lib/node_modules/other/index.js': 'Math.random();\n',
    'test/index.js': 'Math.random();\n',
    'lib/__tests__/a.js': 'Math.random();\n',
    'lib/queue.test.js': 'Math.random();\n',
    'lib/queue.spec.mjs': 'Math.random();\n',
    'benchmarks/run.js': 'Date.now();\n',
    'examples/demo.js': 'Date.now();\n',
    '.git/hooks/x.js': 'Date.now();\n',
    'outside/evil.js': 'Date.now();\n',
  });
  symlinkSync(join(dir, 'outside', 'evil.js'), join(dir, 'linked.js'));
  symlinkSync(dir, join(dir, 'loop'));
  assert.deepEqual(
    sites(scanDirectory(join(dir))).filter((site) => !site.includes('outside/')),
    ['setTimeout index.js:1:1'],
  );
  const everything = sites(scanDirectory(dir, { includeDevelopment: true }));
  assert.deepEqual(
    everything.filter((site) => !site.includes('outside/')),
    [
      'Date.now benchmarks/run.js:1:6',
      'Date.now examples/demo.js:1:6',
      'setTimeout index.js:1:1',
      'Math.random lib/__tests__/a.js:1:6',
      'Math.random lib/queue.spec.mjs:1:6',
      'Math.random lib/queue.test.js:1:6',
      'Math.random test/index.js:1:6',
    ],
  );
});

test('node_modules/pkg works as a root, through a link (pnpm) too', () => {
  const dir = project({
    'node_modules/.pnpm/dice@2.0.0/node_modules/dice/package.json': { name: 'dice', version: '2.0.0' },
    'node_modules/.pnpm/dice@2.0.0/node_modules/dice/index.js': 'exports.roll = () => Math.random();\n',
  });
  symlinkSync(join(dir, 'node_modules/.pnpm/dice@2.0.0/node_modules/dice'), join(dir, 'node_modules/dice'));
  const result = scanDirectory(join(dir, 'node_modules', 'dice'));
  assert.equal(result.package, 'dice@2.0.0');
  assert.deepEqual(sites(result), ['Math.random index.js:1:27']);
});

test('one file that does not parse is an entry; the other files still count', () => {
  const dir = project({
    'a.js': 'Date.now();\n',
    'b.js': 'const x = Date.now(;\n',
    'c.js': 'Math.random();\n',
  });
  const result = scanDirectory(dir);
  assert.deepEqual(sites(result), ['Date.now a.js:1:6', 'Math.random c.js:1:6']);
  assert.equal(result.errors.length, 1);
  const [error] = result.errors;
  assert.deepEqual(
    { ...error, message: undefined },
    { code: 'ERR_SCAN_PARSE', file: 'b.js', line: 1, column: 20, message: undefined },
  );
  assert.match(error!.message, /Unexpected token/);
});

test('a file over the size limit is skipped with a note', () => {
  const dir = project({ 'big.js': `Math.random();${' '.repeat(100)}\n`, 'small.js': 'Math.random();\n' });
  const result = scanDirectory(dir, { maxBytes: 50 });
  assert.deepEqual(sites(result), ['Math.random small.js:1:6']);
  assert.deepEqual(result.skipped, [{ code: 'SKIP_TOO_LARGE', file: 'big.js', bytes: 115, limit: 50 }]);
  assert.equal(result.files, 1);
});

test('an unreadable subdirectory is an entry; the scan goes on', {
  skip: process.getuid?.() === 0 ? 'root reads everything' : false,
}, () => {
  const dir = project({ 'a.js': 'Date.now();\n', 'locked/b.js': 'Math.random();\n' });
  chmodSync(join(dir, 'locked'), 0o000);
  try {
    const result = scanDirectory(dir);
    assert.deepEqual(sites(result), ['Date.now a.js:1:6']);
    assert.deepEqual(
      result.errors.map((error) => [error.code, error.file]),
      [['ERR_SCAN_READ', 'locked']],
    );
  } finally {
    chmodSync(join(dir, 'locked'), 0o755);
  }
});

test('a root that is missing or not a directory is a coded error naming it', () => {
  const dir = project({ 'file.js': '' });
  mkdirSync(join(dir, 'empty'));
  assert.deepEqual(scanDirectory(join(dir, 'empty')).sites, []);
  for (const [path, problem] of [
    [join(dir, 'missing'), /no such directory/],
    [join(dir, 'file.js'), /not a directory/],
  ] as const) {
    assert.throws(
      () => scanDirectory(path),
      (error: unknown) => {
        assert.ok(error instanceof ScanDirectoryError);
        assert.equal(error.code, 'ERR_SCAN_DIR');
        assert.equal(error.dir, path);
        assert.match(error.problem, problem);
        return true;
      },
    );
  }
});
