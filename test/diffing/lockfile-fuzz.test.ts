/**
 * Seeded mutations of a valid lockfile in each format: every result is a parsed lockfile or a
 * coded LockfileError inside the text, never another exception, a hang, or a crash later in diff.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLockfiles, LockfileError, parseLockfile, type Lockfile } from '../../diffing/lockfile/index.js';
import { FILE_NAMES, FORMATS, lockfileText, manifest, nm, type Tree } from '../lockfile-fixtures.js';

const TREE: Tree = {
  dependencies: { 'app-dep': '^1.0.0', '@scope/other': '^2.0.0' },
  devDependencies: { devtool: '^0.1.0' },
  installs: {
    [nm('app-dep')]: { version: '1.0.0', dependencies: { mid: '^1.0.0' } },
    [nm('mid')]: { version: '1.0.0', dependencies: { leaf: '^1.0.0' } },
    [nm('leaf')]: { version: '1.0.0' },
    [nm('@scope/other')]: { version: '2.0.0', dependencies: { leaf: '^2.0.0' } },
    [nm('@scope/other', 'leaf')]: { version: '2.0.0-rc.1' },
    [nm('devtool')]: { version: '0.1.0', dev: true },
  },
};

const MUTATIONS = 300;
/** What a mutation inserts: the characters each syntax gives meaning to, and some it does not. */
const ALPHABET = ' \n\t{}[]"\':,-#|>&*!@^~\\0123456789abz.\r\u00e9\ud83d\ude00';

/** mulberry32: a small seeded generator, so a failure reproduces exactly. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function mutate(text: string, next: () => number): string {
  const at = Math.floor(next() * (text.length + 1));
  const span = 1 + Math.floor(next() * 40);
  const char = () => ALPHABET[Math.floor(next() * ALPHABET.length)]!;
  const lines = text.split('\n');
  const line = Math.floor(next() * lines.length);
  switch (Math.floor(next() * 8)) {
    case 0:
      return text.slice(0, at) + char() + text.slice(at + 1);
    case 1:
      return text.slice(0, at) + text.slice(at + span);
    case 2:
      return text.slice(0, at) + Array.from({ length: span }, char).join('') + text.slice(at);
    case 3:
      return text.slice(0, at) + text.slice(at, at + span) + text.slice(at);
    case 4:
      return text.slice(0, at);
    case 5:
      lines[line] = ' '.repeat(1 + Math.floor(next() * 3)) + lines[line];
      return lines.join('\n');
    case 6:
      lines[line] = lines[line]!.trimStart();
      return lines.join('\n');
    default: {
      const other = Math.floor(next() * lines.length);
      [lines[line], lines[other]] = [lines[other]!, lines[line]!];
      return lines.join('\n');
    }
  }
}

for (const format of FORMATS) {
  test(`${MUTATIONS} mutations of a ${format} lockfile: a lockfile or a coded error`, { timeout: 120_000 }, () => {
    const name = FILE_NAMES[format];
    const valid = lockfileText(TREE, format);
    const original = parseLockfile(valid, name, { manifest: manifest(TREE) });
    const next = random(FORMATS.indexOf(format) + 1);
    const outcomes = { parsed: 0, refused: 0 };
    for (let i = 0; i < MUTATIONS; i++) {
      let text = valid;
      for (let k = 1 + Math.floor(next() * 3); k > 0; k--) text = mutate(text, next);
      let lock: Lockfile;
      try {
        lock = parseLockfile(text, name, { manifest: manifest(TREE) });
      } catch (error) {
        assert.ok(
          error instanceof LockfileError,
          `mutation ${i}: ${error instanceof Error ? error.stack : String(error)}\n${text}`,
        );
        assert.equal(error.file, name);
        assert.ok(
          error.line >= 1 && error.line <= text.split('\n').length + 1,
          `mutation ${i}: line ${error.line}: ${error.message}`,
        );
        assert.ok(error.message.length < 300, `mutation ${i}: a short message: ${error.message}`);
        outcomes.refused++;
        continue;
      }
      outcomes.parsed++;
      for (const pkg of lock.packages.values())
        assert.ok(typeof pkg.name === 'string' && typeof pkg.version === 'string' && pkg.path.length > 0);
      for (const change of [...diffLockfiles(original, lock), ...diffLockfiles(lock, original)])
        assert.ok(change.from !== null || change.to !== null);
    }
    assert.ok(outcomes.refused > 0 && outcomes.parsed > 0, `both outcomes occur: ${JSON.stringify(outcomes)}`);
  });
}
