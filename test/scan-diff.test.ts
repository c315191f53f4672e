import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffScans, scanSource, type ScanDiff, type ScanSite } from '../diffing/scan/index.js';

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
const brief = (diff: ScanDiff) => ({
  added: diff.added.map(at),
  removed: diff.removed.map(at),
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
  assert.deepEqual(brief(diffScans(a, c)), { added: ['Math.random id.js:2:21'], removed: [], changed: [], unchanged: 1 });
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
  const a = version({ 'index.min.js': 'var a=require("crypto");function b(){return a.randomBytes(16)}module.exports=b;' });
  const b = version({ 'index.min.js': 'var r=require("crypto");function t(){return r.randomBytes(16)}module.exports=t;' });
  assert.deepEqual(brief(diffScans(a, b)).changed, ['masked: crypto.randomBytes index.min.js:1:47 -> crypto.randomBytes index.min.js:1:47']);
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
  const b = version({ 'r.js': 'function shuffle(xs) {\n  return xs;\n}\nfunction jitter(ms) {\n  return ms * Math.random();\n}\n' });
  assert.deepEqual(brief(diffScans(a, b)), { added: ['Math.random r.js:5:20'], removed: ['Math.random r.js:2:29'], changed: [], unchanged: 0 });
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
