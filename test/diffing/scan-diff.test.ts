import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffScans, scanSource, type ListedSite, type ScanDiff, type ScanSite } from '../../diffing/scan/index.js';
import { ULID_2, ULID_3 } from '../ulid-fixture.js';

/** A version of a package from its files' sources, scanned in memory. */
function version(files: Record<string, string>): { sites: ScanSite[] } {
  const sites: ScanSite[] = [];
  for (const [file, code] of Object.entries(files)) {
    const scan = scanSource(code, file);
    assert.equal(scan.error, null);
    sites.push(...scan.sites);
  }
  return { sites };
}

const at = (site: ScanSite) => `${site.api} ${site.file}:${site.line}:${site.column}`;
/** A listed site, and after `+` each of its copies in other builds. */
const listed = ({ copies, ...site }: ListedSite) =>
  [at(site), ...copies.map((copy) => `${copy.file}:${copy.line}:${copy.column}`)].join(' + ');
const brief = (diff: ScanDiff) => ({
  added: diff.added.map(listed),
  removed: diff.removed.map(listed),
  changed: diff.changed.map(({ a, b, match }) => `${match}: ${at(a)} -> ${at(b)}`),
  unchanged: diff.unchanged,
});

const QUEUE_1 = [
  "'use strict';",
  'function schedule(job) {',
  '  setImmediate(job);',
  '}',
  'function stamp() {',
  '  return Date.now();',
  '}',
  'module.exports = { schedule, stamp };',
].join('\n');

// 1.1.0: a license header and a helper above everything shift every line, and a jitter is new.
const QUEUE_2 = [
  '/*! queue 1.1.0 | MIT */',
  "'use strict';",
  'const retries = 3;',
  '',
  'function schedule(job) {',
  '  setImmediate(job);',
  '}',
  'function stamp() {',
  '  return Date.now();',
  '}',
  'function backoff(attempt) {',
  '  return 2 ** attempt * (1 + Math.random());',
  '}',
  'module.exports = { schedule, stamp, backoff, retries };',
].join('\n');

test('a new version that adds a Math.random in a shifted file: only that call is added', () => {
  const diff = diffScans(version({ 'index.js': QUEUE_1 }), version({ 'index.js': QUEUE_2 }));
  assert.deepEqual(brief(diff), { added: ['Math.random index.js:12:35'], removed: [], changed: [], unchanged: 2 });
  assert.equal(diff.added[0]!.fn, 'backoff');
});

test('the reverse bump removes it, at its place in the old version', () => {
  const diff = diffScans(version({ 'index.js': QUEUE_2 }), version({ 'index.js': QUEUE_1 }));
  assert.deepEqual(brief(diff), { added: [], removed: ['Math.random index.js:12:35'], changed: [], unchanged: 2 });
});

test('a second call of the same API in the same function is added; the old one pairs with the most alike', () => {
  const a = version({ 'id.js': 'function id() {\n  return Math.random();\n}\n' });
  const b = version({ 'id.js': 'function id() {\n  const salt = Math.random();\n  return Math.random() + salt;\n}\n' });
  assert.deepEqual(brief(diffScans(a, b)), {
    added: ['Math.random id.js:2:21'],
    removed: [],
    changed: ['function: Math.random id.js:2:15 -> Math.random id.js:3:15'],
    unchanged: 0,
  });
  const c = version({ 'id.js': 'function id() {\n  const salt = Math.random();\n  return Math.random();\n}\n' });
  assert.deepEqual(brief(diffScans(a, c)), {
    added: ['Math.random id.js:2:21'],
    removed: [],
    changed: [],
    unchanged: 1,
  });
});

test('an edit around a call in the same function is a change, not an add and a remove', () => {
  const a = version({ 'id.js': 'function id() {\n  return Math.random();\n}\n' });
  const b = version({ 'id.js': 'function id() {\n  return Math.random() * 1e9;\n}\n' });
  assert.deepEqual(brief(diffScans(a, b)).changed, ['function: Math.random id.js:2:15 -> Math.random id.js:2:15']);
});

test('a renamed function keeps its call: matched on the code', () => {
  const a = version({ 'id.js': 'function id() {\n  return crypto.randomUUID();\n}\n' });
  const b = version({ 'id.js': 'function newId() {\n  return crypto.randomUUID();\n}\n' });
  assert.deepEqual(brief(diffScans(a, b)), {
    added: [],
    removed: [],
    changed: ['context: crypto.randomUUID id.js:2:17 -> crypto.randomUUID id.js:2:17'],
    unchanged: 0,
  });
});

test('a minifier renaming every local name still matches the call', () => {
  const a = version({
    'index.min.js': 'var a=require("crypto");function b(){return a.randomBytes(16)}module.exports=b;',
  });
  const b = version({
    'index.min.js': 'var r=require("crypto");function t(){return r.randomBytes(16)}module.exports=t;',
  });
  assert.deepEqual(brief(diffScans(a, b)).changed, [
    'masked: crypto.randomBytes index.min.js:1:47 -> crypto.randomBytes index.min.js:1:47',
  ]);
});

test('a file moved to another directory keeps its sites', () => {
  const a = version({ 'lib/clock.js': 'exports.now = function now() { return Date.now(); };\n' });
  const b = version({ 'dist/clock.js': 'exports.now = function now() { return Date.now(); };\n' });
  assert.deepEqual(brief(diffScans(a, b)), {
    added: [],
    removed: [],
    changed: ['file: Date.now lib/clock.js:1:44 -> Date.now dist/clock.js:1:44'],
    unchanged: 0,
  });
});

test('a call moved to another function with other code is removed there and added here', () => {
  const a = version({ 'r.js': 'function shuffle(xs) {\n  return xs.sort(() => Math.random() - 0.5);\n}\n' });
  const b = version({
    'r.js': 'function shuffle(xs) {\n  return xs;\n}\nfunction jitter(ms) {\n  return ms * Math.random();\n}\n',
  });
  assert.deepEqual(brief(diffScans(a, b)), {
    added: ['Math.random r.js:5:20'],
    removed: ['Math.random r.js:2:29'],
    changed: [],
    unchanged: 0,
  });
});

test('the same versions always give the same diff, and the diff is a copy', () => {
  const a = version({ 'index.js': QUEUE_1 });
  const b = version({ 'index.js': QUEUE_2 });
  const diff = diffScans(a, b);
  assert.deepEqual(diffScans(a, b), diff);
  (diff.added[0] as { line: number }).line = 0;
  assert.equal(b.sites.find((site) => site.api === 'Math.random')!.line, 12);
  assert.deepEqual(diffScans(b, b), { added: [], removed: [], changed: [], unchanged: 3 });
});

test('a version that moves its files and ships them as two builds: only the really new call is added, listed once for both builds', () => {
  const diff = diffScans(version(ULID_2), version(ULID_3));
  assert.deepEqual(brief(diff), {
    added: ['crypto.getRandomValues dist/node/index.cjs:27:20 + dist/node/index.js:26:20'],
    removed: ['Math.random dist/index.umd.js:21:42'],
    changed: [
      'moved: crypto.randomBytes dist/index.umd.js:19:31 -> crypto.randomBytes dist/node/index.cjs:31:48',
      'rebuilt: Date.now dist/index.umd.js:25:42 -> Date.now dist/node/index.cjs:36:40',
      'copy: crypto.randomBytes dist/index.umd.js:19:31 -> crypto.randomBytes dist/node/index.js:30:48',
      'copy: Date.now dist/index.umd.js:25:42 -> Date.now dist/node/index.js:35:40',
    ],
    unchanged: 0,
  });
  assert.equal(diff.added[0]!.fn, 'detectPrng > <anonymous>');
});

test('a version that ships fewer builds: the copies it dropped are not removed', () => {
  const stamp = 'function stamp() {\n  return Date.now();\n}\n';
  const esm = `import { randomUUID } from 'node:crypto';\nexport function id() {\n  return randomUUID();\n}\n${stamp}`;
  const cjs = `const crypto_1 = require('node:crypto');\nfunction id() {\n  return (0, crypto_1.randomUUID)();\n}\n${stamp}`;
  const diff = diffScans(
    version({ 'dist/esm/index.js': esm, 'dist/cjs/index.js': cjs, 'dist/umd/index.js': cjs }),
    version({ 'index.mjs': esm }),
  );
  assert.deepEqual(brief(diff), {
    added: [],
    removed: [],
    changed: [
      'copy: crypto.randomUUID dist/cjs/index.js:3:23 -> crypto.randomUUID index.mjs:3:10',
      'file: crypto.randomUUID dist/esm/index.js:3:10 -> crypto.randomUUID index.mjs:3:10',
      'copy: crypto.randomUUID dist/umd/index.js:3:23 -> crypto.randomUUID index.mjs:3:10',
      'file: Date.now dist/cjs/index.js:6:15 -> Date.now index.mjs:6:15',
      'copy: Date.now dist/esm/index.js:6:15 -> Date.now index.mjs:6:15',
      'copy: Date.now dist/umd/index.js:6:15 -> Date.now index.mjs:6:15',
    ],
    unchanged: 0,
  });
});

test('a copy stands for one matched call per file: a second new call beside it in each build is added, once', () => {
  const a = version({ 'index.js': 'function stamp() {\n  return Date.now();\n}\n' });
  const twice = 'function stamp() {\n  const started = Date.now();\n  return Date.now() - started;\n}\n';
  assert.deepEqual(brief(diffScans(a, version({ 'index.cjs': twice, 'index.mjs': twice }))).added, [
    'Date.now index.cjs:2:24 + index.mjs:2:24',
  ]);
});

test('an added site is listed once per code, not once per build: two new calls in two builds are two sites', () => {
  const a = version({ 'index.js': 'function id() {\n  return 1;\n}\n' });
  const code = 'function id() {\n  return Math.random();\n}\nfunction stamp() {\n  return Date.now();\n}\n';
  const diff = diffScans(a, version({ 'cjs/index.js': code, 'esm/index.js': code, 'umd/index.js': code }));
  assert.deepEqual(brief(diff).added, [
    'Math.random cjs/index.js:2:15 + esm/index.js:2:15 + umd/index.js:2:15',
    'Date.now cjs/index.js:5:15 + esm/index.js:5:15 + umd/index.js:5:15',
  ]);
  assert.deepEqual(brief(diffScans(version({ 'cjs/index.js': code, 'esm/index.js': code }), a)).removed, [
    'Math.random cjs/index.js:2:15 + esm/index.js:2:15',
    'Date.now cjs/index.js:5:15 + esm/index.js:5:15',
  ]);
});

test('a function renamed by case and rewritten in a moved file keeps its call', () => {
  const a = version({
    'lib/prng.js':
      "function detectPrng() {\n  const nodeCrypto = require('crypto');\n  return () => nodeCrypto.randomBytes(1)[0] / 0xff;\n}\n",
  });
  const b = version({
    'dist/prng.cjs':
      "const crypto = require('node:crypto');\nfunction detectPRNG() {\n  return () => crypto.randomBytes(1).readUInt8() / 256;\n}\n",
  });
  assert.deepEqual(brief(diffScans(a, b)), {
    added: [],
    removed: [],
    changed: ['moved: crypto.randomBytes lib/prng.js:3:27 -> crypto.randomBytes dist/prng.cjs:3:23'],
    unchanged: 0,
  });
});
