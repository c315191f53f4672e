import assert from 'node:assert/strict';
import { chmodSync, lstatSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { project, runHooked, tempDir } from '../helpers.js';

const DAY_S = 24 * 60 * 60;
/** Seconds since the epoch `daysAgo` days before the files' own clock (the folder's "now" is a written file's time). */
const ago = (daysAgo: number) => Date.now() / 1000 - daysAgo * DAY_S;

/** A file of the hook's own kind: this user's, writable by no one else. */
function plant(dir: string, name: string, daysAgo = 0): void {
  const path = join(dir, name);
  writeFileSync(path, 'planted', { mode: 0o600 });
  if (daysAgo > 0) utimesSync(path, ago(daysAgo), ago(daysAgo));
}

function setup() {
  const cache = tempDir('detdrift-code-cache-');
  const dir = project({ 'app.mjs': 'console.log(typeof Math.random());\n' });
  const run = () => {
    const hooked = runHooked(['app.mjs'], { cwd: dir, env: { DETDRIFT_CODE_CACHE: cache } });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, 'number\n', '']);
    // the listing and removals of the folder are not the program's: nothing of them is recorded
    assert.deepEqual(
      hooked.traces.get('0')!.events.map((event) => `${event.api} (${event.form})`),
      ['Math.random (call)', 'process.stdout (write)', 'process.exit (exit)'],
    );
  };
  const files = () => readdirSync(cache).sort();
  return { cache, run, files };
}

/** The names a start adds to the folder: its cache, and the memo of the lockfile it finds (none here). */
const added = (before: readonly string[], after: readonly string[]) => after.filter((name) => !before.includes(name));

const OLD = [
  '0123abcd-89abcdef-v20.0.0-x64.cache',
  '0123abcd-89abcdef-v20.0.0-x64.cache.4242',
  'lockfile-0123456789abcdef',
  'lockfile-0123456789abcdef.4242',
];

test('a start that writes the code cache removes the files of the hook older than a week, and nothing else; one that reads it removes nothing', {
  skip: process.platform === 'win32',
}, () => {
  const { cache, run, files } = setup();
  for (const name of OLD) plant(cache, name, 30);
  const fresh = ['fedcba98-76543210-v22.0.0-arm64.cache', 'fedcba98-76543210-v22.0.0-arm64.cache.77'];
  for (const name of fresh) plant(cache, name);
  plant(cache, 'lockfile-fedcba9876543210', 6); // within the week
  // old, but not the hook's: a name it never gives, a file others may write, a link, folders
  plant(cache, 'notes.cache', 30);
  plant(cache, 'ffffffff-ffffffff-v20.0.0-x64.cache', 30);
  chmodSync(join(cache, 'ffffffff-ffffffff-v20.0.0-x64.cache'), 0o666);
  const target = join(tempDir('detdrift-link-target-'), 'target');
  writeFileSync(target, 'target', { mode: 0o600 });
  utimesSync(target, ago(30), ago(30));
  symlinkSync(target, join(cache, '11111111-11111111-v20.0.0-x64.cache'));
  mkdirSync(join(cache, '22222222-22222222-v20.0.0-x64.cache'));
  utimesSync(join(cache, '22222222-22222222-v20.0.0-x64.cache'), ago(30), ago(30));
  mkdirSync(join(cache, 'cli'));
  plant(join(cache, 'cli'), '33333333-33333333-v20.0.0-x64.cache', 30);
  const before = files();

  run();
  const after = files();
  const [written] = added(before, after);
  assert.match(written!, /^[0-9a-f]{8}-[0-9a-f]{8}-v[\w.+-]+\.cache$/);
  assert.deepEqual(
    after,
    [...before.filter((name) => !OLD.includes(name)), written!].sort(),
    'the old files of the hook went, the rest stayed',
  );
  assert.equal(lstatSync(join(cache, '11111111-11111111-v20.0.0-x64.cache')).isSymbolicLink(), true);
  assert.equal(lstatSync(target).isFile(), true, "a link's target stays");
  assert.deepEqual(readdirSync(join(cache, 'cli')), ['33333333-33333333-v20.0.0-x64.cache']);

  // the next start reads the cache: it writes nothing, and removes nothing
  for (const name of OLD) plant(cache, name, 30);
  const planted = files();
  run();
  assert.deepEqual(files(), planted);
});

test('a start that writes the code cache keeps the 64 newest caches, its own among them, and the 1,024 newest lockfile memos', {
  skip: process.platform === 'win32',
}, () => {
  const { cache, run, files } = setup();
  // all within the week, one hour apart: the cap, not the age, removes the oldest
  const caches = Array.from({ length: 70 }, (_, i) => `${(0x10000000 + i).toString(16)}-0badf00d-v20.0.0-x64.cache`);
  caches.forEach((name, i) => {
    plant(cache, name);
    const hoursAgo = ago((i + 1) / 24);
    utimesSync(join(cache, name), hoursAgo, hoursAgo);
  });
  // partial caches and memos do not count towards the caches' cap
  const others = ['10000045-0badf00d-v20.0.0-x64.cache.99', 'lockfile-0123456789abcdef'];
  for (const name of others) plant(cache, name, 6);
  // memos have a cap of their own: 1,030 more of them, a minute apart, and a partial one; the memo
  // above, six days old, is then the oldest of 1,031
  const memos = Array.from({ length: 1030 }, (_, i) => `lockfile-${(0x1000000000000000n + BigInt(i)).toString(16)}`);
  memos.forEach((name, i) => {
    plant(cache, name);
    const minutesAgo = ago((i + 1) / 24 / 60);
    utimesSync(join(cache, name), minutesAgo, minutesAgo);
  });
  plant(cache, `${memos.at(-1)!}.31`, 6);
  const before = files();

  run();
  const after = files();
  const [written] = added(before, after);
  assert.ok(written?.endsWith('.cache'));
  const kept = [...caches.slice(0, 63), others[0]!, ...memos.slice(0, 1024), `${memos.at(-1)!}.31`, written!];
  assert.deepEqual(after, kept.sort());
});
