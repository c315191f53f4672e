import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { LockfileError } from '../../diffing/lockfile/index.js';
import { parseYaml, readPrecisely } from '../../diffing/lockfile/yaml.js';
import { lockfileText, SAMPLE } from '../lockfile-fixtures.js';

const read = (text: string) => JSON.parse(JSON.stringify(parseYaml(text, 'x.yaml').root));

test('YAML as lockfiles write it: mappings, sequences, flow, quoting, comments; scalars stay strings, an empty value is null', () => {
  const text = [
    '--- # a document marker',
    'plain: a b:c # a comment',
    "single: 'it''s'",
    'double: "tab\\there \\u00e9 \\"q\\""',
    "'@scope/x@1.0.0': {integrity: sha512-a+b/c==, tarball: https://r/x.tgz}",
    'engines: {node: ^8.16.0 || >=11.0.0}',
    "os: [darwin, '!win32', [nested], {a: 1}, ]",
    'empty:',
    'tilde: ~',
    'number: 8',
    'flowEmpty: {}',
    'list:',
    '- one',
    '- key: value',
    '  other: more',
    '- - inner',
    'indented:',
    '  - x',
    '  -',
    '    deep: y',
  ].join('\n');
  assert.deepEqual(read(text), {
    plain: 'a b:c',
    single: "it's",
    double: 'tab\there é "q"',
    '@scope/x@1.0.0': { integrity: 'sha512-a+b/c==', tarball: 'https://r/x.tgz' },
    engines: { node: '^8.16.0 || >=11.0.0' },
    os: ['darwin', '!win32', ['nested'], { a: '1' }],
    empty: null,
    tilde: '~',
    number: '8',
    flowEmpty: {},
    list: ['one', { key: 'value', other: 'more' }, ['inner']],
    indented: ['x', { deep: 'y' }],
  });
});

test('block scalars: literal, folded, chomping', () => {
  const text = [
    'a: |',
    '  one',
    '   two',
    '',
    'b: >-',
    '  folded',
    '  line',
    '',
    '  para',
    'c: |+',
    '  kept',
    '',
    'd: x',
  ].join('\n');
  assert.deepEqual(read(text), { a: 'one\n two\n', b: 'folded line\npara', c: 'kept\n\n', d: 'x' });
});

test('lines of mappings and keys are kept for errors', () => {
  const doc = parseYaml('a:\n  b: 1\n  c:\n    d: 2\n', 'x.yaml');
  const a = (doc.root as Record<string, Record<string, unknown>>).a!;
  assert.equal(doc.line(a), 2);
  assert.equal(doc.line(a, 'c'), 3);
  assert.equal(doc.line(a.c as object, 'd'), 4);
  assert.deepEqual(Object.keys(a), ['b', 'c'], 'the line records are not keys');
});

test('what a lockfile never has is refused, and what the parser refuses is placed at its line and column', () => {
  const cases: [string, number, number, RegExp][] = [
    ['a: *alias\n', 1, 4, /aliases/],
    ['a: &x 1\n', 1, 7, /anchors/],
    ['a: !!str 1\n', 1, 10, /tags/],
    ['a: 1\n---\nb: 2\n', 2, 1, /a second YAML document/],
    ['? [a]\n: b\n', 1, 3, /key must be a scalar/],
    [`${'['.repeat(100)}${']'.repeat(100)}\n`, 1, 65, /nesting deeper than 64 levels/],
    ['a: 1\n b: 2\n', 1, 4, /Nested mappings/],
    ['a:\n  - x\n  y: 1\n', 3, 1, /same column/],
    ['a: "\\q"\n', 1, 5, /Invalid escape/],
    ['a: |9x\n', 1, 6, /Block scalar header/],
    ['a: 1\n\tb: 2\n', 2, 1, /Tabs/],
  ];
  for (const [text, line, column, reason] of cases) {
    assert.throws(
      () => parseYaml(text, 'x.yaml'),
      (error: unknown) =>
        error instanceof LockfileError &&
        error.code === 'ERR_LOCKFILE_PARSE' &&
        error.line === line &&
        error.column === column &&
        reason.test(error.message),
      JSON.stringify(text),
    );
  }
});

test('the quick reading and the precise one agree on lockfiles, and on what only the precise one may decide', () => {
  const texts = [
    lockfileText(SAMPLE, 'pnpm'),
    lockfileText(SAMPLE, 'yarn-berry'),
    'a:\n  __proto__: {polluted: yes}\n  constructor: x\n',
    '? [a]\n: b\n',
    'a: \'quoted\'\nb: "double"\nc: plain\nd:\ne: []\n',
  ];
  for (const text of texts) {
    let precise: unknown;
    try {
      precise = readPrecisely(text, 'x.yaml').root;
    } catch (error) {
      precise = error;
    }
    if (precise instanceof Error) assert.throws(() => parseYaml(text, 'x.yaml'), { message: precise.message }, text);
    else assert.deepEqual(parseYaml(text, 'x.yaml').root, precise, text);
  }
  const root = parseYaml('a:\n  __proto__: {polluted: yes}\n', 'x.yaml').root as Record<
    string,
    Record<string, unknown>
  >;
  assert.equal(Object.getPrototypeOf(root.a), null, 'a mapping has no prototype');
  assert.deepEqual(Object.keys(root.a!), ['__proto__'], 'a key named __proto__ is data');
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('a lockfile with nothing to refuse is read by js-yaml alone: the yaml package is not loaded', () => {
  const yamlModule = JSON.stringify(new URL('../../diffing/lockfile/yaml.js', import.meta.url).href);
  const text = JSON.stringify(lockfileText(SAMPLE, 'pnpm'));
  const script = [
    `const { parseYaml } = await import(${yamlModule});`,
    `parseYaml(${text}, 'pnpm-lock.yaml');`,
    "const { createRequire } = await import('node:module');",
    'const cache = createRequire(import.meta.url).cache;',
    'console.log(JSON.stringify(Object.keys(cache).filter((file) => /node_modules[\\\\/](yaml|js-yaml)[\\\\/]/.test(file)).map((file) => file.match(/node_modules[\\\\/]((?:js-)?yaml)[\\\\/]/)[1]).filter((name, i, all) => all.indexOf(name) === i)));',
  ].join('\n');
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), ['js-yaml']);
});
