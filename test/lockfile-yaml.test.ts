import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LockfileError } from '../diffing/lockfile/index.js';
import { parseYaml } from '../diffing/lockfile/yaml.js';

const read = (text: string) => JSON.parse(JSON.stringify(parseYaml(text, 'x.yaml').root));

test('the YAML subset: mappings, sequences, flow, quoting, comments', () => {
  const text = [
    '--- # a document marker',
    'plain: a b:c # a comment',
    "single: 'it''s'",
    'double: "tab\\there \\u00e9 \\"q\\""',
    "'@scope/x@1.0.0': {integrity: sha512-a+b/c==, tarball: https://r/x.tgz}",
    'engines: {node: ^8.16.0 || >=11.0.0}',
    "os: [darwin, '!win32', [nested], {a: 1}, ]",
    'empty:',
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
    flowEmpty: {},
    list: ['one', { key: 'value', other: 'more' }, ['inner']],
    indented: ['x', { deep: 'y' }],
  });
});

test('block scalars: literal, folded, chomping', () => {
  const text = ['a: |', '  one', '   two', '', 'b: >-', '  folded', '  line', '', '  para', 'c: |+', '  kept', '', 'd: x'].join('\n');
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

test('what the subset refuses, it refuses at a line and column', () => {
  const cases: [string, number, number, RegExp][] = [
    ['a: 1\n b: 2\n', 2, 2, /unexpected indentation/],
    ['a:\n  - x\n  y: 1\n', 3, 3, /unexpected indentation|expected/],
    ['a: *alias\n', 1, 4, /aliases/],
    ['a: "\\q"\n', 1, 5, /unknown escape/],
    ['a: |9x\n', 1, 4, /block scalar header/],
    ['- a\nb: 1\n', 2, 1, /expected|sequence/],
    ['a: 1\n\tb: 2\n', 2, 1, /tab/],
    ['--- x\n', 1, 5, /document marker/],
  ];
  for (const [text, line, column, reason] of cases) {
    assert.throws(
      () => parseYaml(text, 'x.yaml'),
      (error: unknown) => error instanceof LockfileError && error.code === 'ERR_LOCKFILE_PARSE' && error.line === line && error.column === column && reason.test(error.message),
      JSON.stringify(text),
    );
  }
});
