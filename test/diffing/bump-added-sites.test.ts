import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { bump, bumpText, direct, json, repository } from '../bump-fixtures.js';
import { lines } from '../cli-fixtures.js';
import { nm } from '../lockfile-fixtures.js';
import { INSECURE_RANDOM, ULID_2, ULID_3 } from '../ulid-fixture.js';

/**
 * The sites a bump adds, as the report lists them: a version that moves its files and ships two
 * builds adds only its really new call, reached through an alias of the global, and a package the
 * bump brings in adds all of its sites.
 */
test('ulid 2 -> 3: the getRandomValues reached through globalCrypto is added and reached; moved files add nothing; the new package adds its Math.random', () => {
  const app = lines("const { ulid } = require('ulid');", 'console.log(ulid());');
  const dir = repository(
    'npm-v3',
    app,
    { tree: direct('ulid', '2.4.0'), packages: { 'ulid@2.4.0': ULID_2 } },
    {
      tree: {
        dependencies: { ulid: '^3.0.0' },
        installs: {
          [nm('ulid')]: { version: '3.0.0', dependencies: { 'insecure-random': '^1.0.0' } },
          [nm('insecure-random')]: { version: '1.0.0' },
        },
      },
      packages: { 'ulid@3.0.0': ULID_3, 'insecure-random@1.0.0': INSECURE_RANDOM },
    },
  );
  const report = json(bump(dir, '--mode', 'control'), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.deepEqual(
    report.bump.changes.map((change: { name: string; from: string | null; to: string }) => [
      change.name,
      change.from,
      change.to,
    ]),
    [
      ['insecure-random', null, '1.0.0'],
      ['ulid', '2.4.0', '3.0.0'],
    ],
  );
  // The blamed call is the alias's: in the list of added sites, and reached.
  assert.deepEqual(
    [report.cause.api, report.cause.site.file, report.cause.site.line, report.cause.site.column],
    ['crypto.getRandomValues', 'ulid@3.0.0/dist/node/index.cjs', 27, 20],
  );
  assert.deepEqual(
    report.bump.addedSites.map(
      (site: { api: string; package: string; file: string; line: number; column: number; reached: boolean }) => [
        site.api,
        `${site.package}/${site.file}:${site.line}:${site.column}`,
        site.reached,
      ],
    ),
    [
      ['Math.random', 'insecure-random@1.0.0/index.js:2:15', false],
      ['crypto.getRandomValues', 'ulid@3.0.0/dist/node/index.cjs:27:20', true],
    ],
    'the site is listed once for its two builds, at the build head ran',
  );
});

test('a call through an alias the scan cannot follow (a parameter) is a site where a run made it: new in head, it is added and reached; kept from base, it is not', () => {
  const pick = ['function pick(root) {', '  const c = root.crypto;', '  return c.randomUUID();', '}'];
  const app = lines("const { token } = require('token');", 'console.log(token());');
  const dir = repository(
    'npm-v3',
    app,
    {
      tree: direct('token', '1.0.0'),
      packages: { 'token@1.0.0': lines(...pick, 'exports.token = () => pick(globalThis);') },
    },
    {
      tree: direct('token', '1.1.0'),
      packages: {
        'token@1.1.0': {
          'index.js': "module.exports = require('./lib/token.js');\n",
          'lib/token.js': lines(
            ...pick,
            'function salt(root) {',
            '  return root.crypto.getRandomValues(new Uint32Array(1))[0];',
            '}',
            'exports.token = () => pick(globalThis) + salt(globalThis);',
          ),
        },
      },
    },
  );
  const report = json(bump(dir, '--mode', 'control'), 1);
  assert.deepEqual(
    [report.cause.api, report.cause.site.file, report.cause.site.line, report.cause.site.column],
    ['crypto.getRandomValues', 'token@1.1.0/lib/token.js', 6, 22],
  );
  assert.deepEqual(
    report.bump.addedSites.map(
      (site: { api: string; file: string; line: number; column: number; fn: string; reached: boolean }) => [
        site.api,
        `${site.file}:${site.line}:${site.column}`,
        site.fn,
        site.reached,
      ],
    ),
    [['crypto.getRandomValues', 'lib/token.js:6:22', 'salt', true]],
  );
});

test('a site a new version adds only in its build for browsers is listed apart: Node does not load it', () => {
  const app = lines("const { roll } = require('dice');", "console.log('rolled', roll());");
  const node = 'exports.roll = () => 4;\n';
  const side = (version: string, files: Record<string, string>) => ({
    tree: direct('dice', version),
    packages: { [`dice@${version}`]: { 'index.js': node, ...files } },
  });
  const dir = repository(
    'npm-v3',
    app,
    side('1.0.0', {}),
    side('1.0.1', { 'dist/browser/index.js': 'exports.roll = () => 4 + Math.random();\n' }),
  );
  const report = json(bump(dir), 0);
  assert.equal(report.bump.verdict, 'unchanged');
  assert.deepEqual(
    report.bump.addedSites.map((site: { api: string; file: string; browserOnly: boolean }) => [
      site.api,
      site.file,
      site.browserOnly,
    ]),
    [['Math.random', 'dist/browser/index.js', true]],
  );
  assert.equal(bumpText(dir, '--report', 'summary=summary.md').code, 0);
  const summary = readFileSync(join(dir, 'summary.md'), 'utf8');
  assert.match(summary, /In builds for browsers, which Node does not load:\n\n\| API \| site \| reached by head \|/);
  assert.doesNotMatch(summary, /Clock and entropy calls the new versions add/);
});
