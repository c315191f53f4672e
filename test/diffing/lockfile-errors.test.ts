import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  diffLockfiles,
  LockfileError,
  parseLockfile,
  readLockfile,
  type LockfileErrorCode,
} from '../../diffing/lockfile/index.js';
import { tempDir } from '../helpers.js';
import {
  FILE_NAMES,
  FORMATS,
  lockfileText,
  manifest,
  nm,
  type FixtureFormat,
  type Tree,
} from '../lockfile-fixtures.js';

const TREE: Tree = {
  dependencies: { 'app-dep': '^1.0.0' },
  installs: {
    [nm('app-dep')]: { version: '1.0.0', dependencies: { mid: '^1.0.0' } },
    [nm('mid')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
    [nm('leaf')]: { version: '1.0.0' },
  },
};

/** Runs `parse`, which must throw the coded error naming `file` (and `line`, `column` when given). */
function refused(
  parse: () => unknown,
  code: LockfileErrorCode,
  file: string,
  line?: number,
  column?: number,
): LockfileError {
  let thrown: unknown;
  try {
    parse();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown instanceof LockfileError, `a LockfileError, not ${String(thrown)}`);
  assert.equal(thrown.code, code, thrown.message);
  assert.equal(thrown.file, file);
  if (code === 'ERR_LOCKFILE_PARSE' || code === 'ERR_LOCKFILE_VERSION')
    assert.ok(thrown.line >= 1, `a line: ${thrown.message}`);
  if (line !== undefined) assert.equal(thrown.line, line, thrown.message);
  if (column !== undefined) assert.equal(thrown.column, column, thrown.message);
  assert.ok(thrown.message.startsWith(thrown.line > 0 ? `${file}:${thrown.line}` : `${file}: `), thrown.message);
  assert.ok(thrown.message.length < 400, 'the message stays short whatever the input');
  return thrown;
}

const parse = (format: FixtureFormat, text: string) => () =>
  parseLockfile(text, FILE_NAMES[format], { manifest: manifest(TREE) });
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((line) => line.includes(needle)) + 1;

test('a missing file, a directory and an unknown format each have their code', () => {
  const dir = tempDir();
  refused(
    () => readLockfile(join(dir, 'package-lock.json')),
    'ERR_LOCKFILE_MISSING',
    join(dir, 'package-lock.json'),
    0,
  );
  mkdirSync(join(dir, 'yarn.lock'));
  refused(() => readLockfile(join(dir, 'yarn.lock')), 'ERR_LOCKFILE_READ', join(dir, 'yarn.lock'));
  writeFileSync(join(dir, 'deps.txt'), 'hello\n');
  refused(() => readLockfile(join(dir, 'deps.txt')), 'ERR_LOCKFILE_FORMAT', join(dir, 'deps.txt'));
  refused(() => readLockfile('/dev/null/package-lock.json'), 'ERR_LOCKFILE_MISSING', '/dev/null/package-lock.json');
});

test('unsupported format versions are refused at the version', () => {
  const v1 = '{\n  "name": "fixture-app",\n  "lockfileVersion": 1,\n  "requires": true,\n  "dependencies": {}\n}\n';
  assert.match(
    refused(() => parseLockfile(v1, 'package-lock.json'), 'ERR_LOCKFILE_VERSION', 'package-lock.json', 3).message,
    /npm 7 or later/,
  );
  refused(
    () => parseLockfile('{"lockfileVersion": 4, "packages": {}}', 'package-lock.json'),
    'ERR_LOCKFILE_VERSION',
    'package-lock.json',
    1,
  );
  refused(
    () => parseLockfile("lockfileVersion: '6.0'\n\nimporters: {}\n", 'pnpm-lock.yaml'),
    'ERR_LOCKFILE_VERSION',
    'pnpm-lock.yaml',
    1,
  );
  const berry = lockfileText(TREE, 'yarn-berry').replace('  version: 10\n', '  version: 3\n');
  refused(() => parseLockfile(berry, 'yarn.lock'), 'ERR_LOCKFILE_VERSION', 'yarn.lock', 5);
  const classic = lockfileText(TREE, 'yarn-classic').replace('# yarn lockfile v1', '# yarn lockfile v2');
  refused(() => parseLockfile(classic, 'yarn.lock'), 'ERR_LOCKFILE_VERSION', 'yarn.lock', 2);
});

test('truncated JSON is refused at the end of what is there', () => {
  const text = lockfileText(TREE, 'npm-v3');
  const cut = text.slice(0, Math.floor(text.length / 2));
  const lines = cut.split('\n');
  refused(parse('npm-v3', cut), 'ERR_LOCKFILE_PARSE', 'package-lock.json', lines.length, lines.at(-1)!.length + 1);
  refused(parse('npm-v3', ''), 'ERR_LOCKFILE_PARSE', 'package-lock.json', 1, 1);
});

test('a JSON syntax error is refused at its line and column', () => {
  const text = lockfileText(TREE, 'npm-v3').replace('"node_modules/mid": {', '"node_modules/mid" {');
  const line = lineOf(text, '"node_modules/mid" {');
  refused(
    parse('npm-v3', text),
    'ERR_LOCKFILE_PARSE',
    'package-lock.json',
    line,
    text.split('\n')[line - 1]!.indexOf('{') + 1,
  );
});

test('bad YAML indentation is refused at the line', () => {
  const pnpm = lockfileText(TREE, 'pnpm').replace('        version: 1.0.0', '       version: 1.0.0');
  assert.match(
    refused(parse('pnpm', pnpm), 'ERR_LOCKFILE_PARSE', 'pnpm-lock.yaml', lineOf(pnpm, '       version: 1.0.0'), 1)
      .message,
    /same column/,
  );
  const berry = lockfileText(TREE, 'yarn-berry').replace(
    '  resolution: "leaf@npm:1.0.0"',
    ' resolution: "leaf@npm:1.0.0"',
  );
  refused(
    parse('yarn-berry', berry),
    'ERR_LOCKFILE_PARSE',
    'yarn.lock',
    lineOf(berry, ' resolution: "leaf@npm:1.0.0"'),
  );
  const classic = lockfileText(TREE, 'yarn-classic').replace('  version "1.0.0"', '   version "1.0.0"');
  refused(parse('yarn-classic', classic), 'ERR_LOCKFILE_PARSE', 'yarn.lock', lineOf(classic, '   version "1.0.0"'), 4);
  const tabs = lockfileText(TREE, 'pnpm').replace('    dependencies:', '\tdependencies:');
  assert.match(
    refused(parse('pnpm', tabs), 'ERR_LOCKFILE_PARSE', 'pnpm-lock.yaml', lineOf(tabs, '\tdependencies:')).message,
    /Tabs/,
  );
});

test('YAML a lockfile never has is refused, not misread', () => {
  const cases: [string, RegExp][] = [
    ['lockfileVersion: &v 9.0\n', /anchors/],
    ["lockfileVersion: '9.0'\nsnapshots: *v\n", /aliases/],
    ["lockfileVersion: !!str '9.0'\n", /tags/],
    ["lockfileVersion: '9.0'\n---\nlockfileVersion: '9.0'\n", /a second YAML document/],
    ["lockfileVersion: '9.0'\nlockfileVersion: '9.0'\n", /duplicate key "lockfileVersion"/],
    ["lockfileVersion: '9.0'\nsnapshots: {a: [1, 2}\n", /end with a \]/],
    ["lockfileVersion: '9.0'\nsnapshots: {a: 1\n", /end with a \}/],
    ["lockfileVersion: 'nine\n", /Missing closing 'quote/],
    ["lockfileVersion: '9.0'\nimporters: a: b\n", /Nested mappings are not allowed/],
  ];
  for (const [text, reason] of cases)
    assert.match(
      refused(() => parseLockfile(text, 'pnpm-lock.yaml'), 'ERR_LOCKFILE_PARSE', 'pnpm-lock.yaml').message,
      reason,
    );
});

test('binary garbage is refused at the line of the first bad byte, in every format', () => {
  const dir = tempDir();
  let seed = 7;
  const garbage = Buffer.alloc(4096, 0);
  for (let i = 0; i < garbage.length; i++) garbage[i] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
  const notUtf8 = Buffer.concat([Buffer.from('# yarn lockfile v1\n\n'), Buffer.from([0xc3, 0x28, 0xff, 0xfe])]);
  for (const name of new Set(Object.values(FILE_NAMES))) {
    mkdirSync(join(dir, name.replace('.', '-')));
    const file = join(dir, name.replace('.', '-'), name);
    writeFileSync(file, garbage);
    refused(() => readLockfile(file), 'ERR_LOCKFILE_PARSE', file);
    writeFileSync(file, notUtf8);
    assert.match(refused(() => readLockfile(file), 'ERR_LOCKFILE_PARSE', file, 3, 1).message, /not UTF-8/);
    refused(() => parseLockfile(garbage.toString('latin1'), name), 'ERR_LOCKFILE_PARSE', name);
  }
});

test('a 1 MB line is refused at its line, or read when it is valid', () => {
  const huge = 'x'.repeat(1 << 20);
  for (const format of FORMATS) {
    const lines = lockfileText(TREE, format).split('\n');
    const at = format.startsWith('npm') ? 2 : 3; // inside the JSON object, after the YAML headers
    const broken = [
      ...lines.slice(0, at),
      format.startsWith('npm') ? `  "x": "${huge}` : huge,
      ...lines.slice(at),
    ].join('\n');
    refused(parse(format, broken), 'ERR_LOCKFILE_PARSE', FILE_NAMES[format], at + 1);
  }
  // YAML allows an implicit key of 1024 characters at most: a longer one is refused at its line.
  assert.match(
    refused(
      () => parseLockfile(`lockfileVersion: '9.0'\nsnapshots:\n  ${huge}: {}\n`, 'pnpm-lock.yaml'),
      'ERR_LOCKFILE_PARSE',
      'pnpm-lock.yaml',
      3,
    ).message,
    /1024/,
  );
  const long = 'x'.repeat(1000);
  const duplicate = `lockfileVersion: '9.0'\nsnapshots:\n  ${long}: {}\n  ${long}: {}\n`;
  assert.match(
    refused(() => parseLockfile(duplicate, 'pnpm-lock.yaml'), 'ERR_LOCKFILE_PARSE', 'pnpm-lock.yaml', 4).message,
    /duplicate key "x{40}…"$/,
  );
  const pnpm = lockfileText(TREE, 'pnpm').replace(
    '  leaf@1.0.0:\n    resolution',
    `  leaf@1.0.0:\n    deprecated: ${huge}\n    resolution`,
  );
  assert.equal(parseLockfile(pnpm, 'pnpm-lock.yaml').packages.size, 3);
});

test('10k-deep nesting is refused without exhausting the stack', () => {
  const deep = 10_000;
  const json = `{"lockfileVersion": 3,\n"packages": {"": {},\n"node_modules/x": ${'['.repeat(deep)}${']'.repeat(deep)}}}`;
  assert.match(
    refused(() => parseLockfile(json, 'package-lock.json'), 'ERR_LOCKFILE_PARSE', 'package-lock.json', 3).message,
    /must be an object/,
  );
  refused(
    () => parseLockfile(`{"lockfileVersion": 3, "packages": ${'{"a":'.repeat(deep)}`, 'package-lock.json'),
    'ERR_LOCKFILE_PARSE',
    'package-lock.json',
    1,
  );
  // Regression: the refusal once described the version with JSON.stringify, which overflowed the stack.
  const version = `{"lockfileVersion": ${'['.repeat(deep * 10)}${']'.repeat(deep * 10)}, "packages": {"": {}}}`;
  assert.match(
    refused(() => parseLockfile(version, 'package-lock.json'), 'ERR_LOCKFILE_VERSION', 'package-lock.json', 1).message,
    /lockfileVersion a list/,
  );
  const block = Array.from({ length: deep }, (_, i) => `${'  '.repeat(i)}a:`).join('\n');
  assert.match(
    refused(
      () => parseLockfile(`lockfileVersion: '9.0'\n${block}\n`, 'pnpm-lock.yaml'),
      'ERR_LOCKFILE_PARSE',
      'pnpm-lock.yaml',
    ).message,
    /nesting deeper/,
  );
  assert.match(
    refused(() => parseLockfile(`__metadata:\n${block}\n`, 'yarn.lock'), 'ERR_LOCKFILE_PARSE', 'yarn.lock').message,
    /nesting deeper/,
  );
  assert.match(
    refused(() => parseLockfile(`# yarn lockfile v1\n${block}\n`, 'yarn.lock'), 'ERR_LOCKFILE_PARSE', 'yarn.lock')
      .message,
    /nesting deeper/,
  );
  const flow = `lockfileVersion: '9.0'\nsnapshots: ${'['.repeat(deep)}${']'.repeat(deep)}\n`;
  refused(() => parseLockfile(flow, 'pnpm-lock.yaml'), 'ERR_LOCKFILE_PARSE', 'pnpm-lock.yaml', 2);
  const items = Array.from({ length: deep }, (_, i) => `${'  '.repeat(i)}- `).join('\n');
  refused(
    () => parseLockfile(`lockfileVersion: '9.0'\nsnapshots:\n${items}\n`, 'pnpm-lock.yaml'),
    'ERR_LOCKFILE_PARSE',
    'pnpm-lock.yaml',
  );
});

test('keys that name Object.prototype members are data, not prototype lookups', () => {
  const npm = {
    lockfileVersion: 3,
    packages: {
      '': { dependencies: { constructor: '1', __proto__: '1' } },
      'node_modules/constructor': { version: '1.0.0' },
    },
  };
  const lock = parseLockfile(JSON.stringify(npm), 'package-lock.json');
  assert.deepEqual([...lock.packages.keys()], ['node_modules/constructor']);
  const pnpm =
    "lockfileVersion: '9.0'\nimporters:\n  .:\n    dependencies:\n      __proto__:\n        specifier: '1'\n        version: 1.0.0\nsnapshots:\n  __proto__@1.0.0: {}\n  toString@1.0.0: {}\n";
  assert.deepEqual(
    [...parseLockfile(pnpm, 'pnpm-lock.yaml').packages.values()].map((pkg) => [pkg.name, pkg.direct]),
    [
      ['__proto__', true],
      ['toString', false],
    ],
  );
});

test('a 10k-long dependency chain is read, and the bump at its end has the whole path', () => {
  const chain = (last: string) => {
    const lines = [
      "lockfileVersion: '9.0'",
      '',
      'importers:',
      '',
      '  .:',
      '    dependencies:',
      '      p0:',
      '        specifier: ^1.0.0',
      '        version: 1.0.0',
      '',
      'snapshots:',
      '',
    ];
    for (let i = 0; i < 9_999; i++)
      lines.push(`  p${i}@1.0.0:`, '    dependencies:', `      p${i + 1}: ${i === 9_998 ? last : '1.0.0'}`, '');
    lines.push(`  p9999@${last}: {}`, '');
    return parseLockfile(lines.join('\n'), 'pnpm-lock.yaml');
  };
  const [change, ...rest] = diffLockfiles(chain('1.0.0'), chain('1.0.1'));
  assert.deepEqual(rest, []);
  assert.deepEqual(
    [change?.name, change?.kind, change?.path.length, change?.path[0], change?.path.at(-1)],
    ['p9999', 'patch', 10_000, 'p0', 'p9999'],
  );
});
