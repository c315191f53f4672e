import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { CHECKSUM_BYTES, checksum } from '../../instrument/code-cache-checksum.cjs';
import {
  assertSameAsPlain,
  eventsOf,
  project,
  REGISTER,
  runHooked,
  runHookedOk,
  runPlain,
  tempDir,
  type HookedRun,
} from '../helpers.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

test('the families are in place before the program runs: named ESM imports, CJS require and dynamic import all see them', () => {
  const dir = project({
    'app.mjs': `
      import { randomUUID } from 'node:crypto';
      import { createRequire } from 'node:module';
      const required = createRequire(import.meta.url)('node:crypto');
      const imported = await import('node:crypto');
      console.log(randomUUID().length, required.randomUUID().length, imported.randomUUID().length);
      await import('./late.cjs');
    `,
    'late.cjs': "console.log(typeof require('node:os').hostname());\n",
  });
  const hooked = assertSameAsPlain(['app.mjs'], { cwd: dir }, 0);
  const trace = hooked.traces.get('0')!;
  assert.equal(eventsOf(trace, 'crypto.randomUUID').length, 3);
  assert.equal(eventsOf(trace, 'os.hostname').length, 1);
});

test("an ESM program's named imports of every patched builtin see the bundled hook's wrappers", () => {
  // The bundle takes builtins from process.getBuiltinModule and builds no ESM facade: the
  // program's own imports build them from the exports the hook has already patched.
  const dir = project({
    'app.mjs': `
      import { readdirSync } from 'node:fs';
      import { readdir } from 'node:fs/promises';
      import { execFileSync, spawnSync } from 'node:child_process';
      import { randomBytes, randomUUID } from 'node:crypto';
      import { setTimeout } from 'node:timers';
      import { setTimeout as delay } from 'node:timers/promises';
      import { performance } from 'node:perf_hooks';
      import { hostname, tmpdir } from 'node:os';
      readdirSync('.');
      await readdir('.');
      execFileSync(process.execPath, ['-e', '0']);
      spawnSync(process.execPath, ['-e', '0']);
      randomBytes(4);
      randomUUID();
      await new Promise((resolve) => setTimeout(resolve, 0));
      await delay(0);
      performance.now();
      hostname();
      tmpdir();
    `,
  });
  const run = assertSameAsPlain(['app.mjs'], { cwd: dir }, 0);
  const trace = run.traces.get('0')!;
  const once: ReadonlyArray<readonly [string, string]> = [
    ['fs.readdir', 'sync'],
    ['fs.readdir', 'promise'],
    ['crypto.randomBytes', 'sync'],
    ['crypto.randomUUID', 'module'],
    ['setTimeout', 'schedule'],
    ['setTimeout', 'promise'],
    ['performance.now', 'call'],
    ['os.hostname', 'call'],
    ['os.tmpdir', 'call'],
  ];
  for (const [api, form] of once) assert.equal(eventsOf(trace, api, form).length, 1, `${api} (${form})`);
  // the children got their lineage names from the wrapped execFileSync and spawnSync
  assert.deepEqual([...run.traces.keys()].sort(), ['0', '0.1', '0.2']);
});

test("a bare hook digests the lockfile once per traced tree: children carry the root's digest", () => {
  const lock = '{"lockfileVersion":3}\n';
  const dir = project({
    'package-lock.json': lock,
    // The lockfile changes before the child starts: a child that hashed it again would disagree.
    'root.mjs': `
      import { execFileSync } from 'node:child_process';
      import { writeFileSync } from 'node:fs';
      writeFileSync('package-lock.json', '{"lockfileVersion":3,"changed":true}\\n');
      execFileSync(process.execPath, ['-e', '0']);
    `,
  });
  const run = runHookedOk(['root.mjs'], { cwd: dir });
  const digest = { file: 'package-lock.json', sha256: sha256(lock) };
  assert.deepEqual(run.traces.get('0')!.header.lockfile, digest);
  assert.deepEqual(run.traces.get('0.1')!.header.lockfile, digest);
});

test("a bare hook remembers the lockfile's digest by the file's identity in its code-cache folder, and digests a changed lockfile again", () => {
  const dir = project({ 'package-lock.json': '{"lockfileVersion":3}\n', 'app.mjs': 'console.log(1);\n' });
  const cache = tempDir('detdrift-code-cache-');
  const lockfile = () =>
    runHookedOk(['app.mjs'], { cwd: dir, env: { DETDRIFT_CODE_CACHE: cache } }).traces.get('0')!.header.lockfile;
  const memos = () => readdirSync(cache).filter((name) => name.startsWith('lockfile-'));

  assert.deepEqual(lockfile(), { file: 'package-lock.json', sha256: sha256('{"lockfileVersion":3}\n') });
  assert.equal(memos().length, 1);
  // what the memo holds is what a start takes while the file is unchanged: it does not read the file
  const memo = join(cache, memos()[0]!);
  const [identity] = readFileSync(memo, 'utf8').split('\n');
  writeFileSync(memo, `${identity}\n${'0'.repeat(64)}\n`);
  assert.equal(lockfile()!.sha256, '0'.repeat(64));

  writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3,"changed":true}\n');
  assert.equal(lockfile()!.sha256, sha256('{"lockfileVersion":3,"changed":true}\n'));
  assert.deepEqual(memos().length, 1, 'one memo per lockfile path');
});

/** The hook's files, copied into a bare package of their own: returns its register.js. */
function loneHook(): string {
  const lone = tempDir('detdrift-lone-');
  mkdirSync(join(lone, 'dist', 'instrument'), { recursive: true });
  for (const file of ['register.js', 'register.cjs', 'code-cache-dir.cjs', 'code-cache-prune.cjs', 'bundle.js'])
    copyFileSync(join(dirname(REGISTER), file), join(lone, 'dist', 'instrument', file));
  writeFileSync(
    join(lone, 'package.json'),
    JSON.stringify({ name: 'detdrift', version: '0.0.0-lone', type: 'module' }),
  );
  return join(lone, 'dist', 'instrument', 'register.js');
}

test('the hook is self-contained: its loader and bundle copied alone into a bare package record in every mode and name its version', () => {
  // Nothing beside them, no node_modules: a static or dynamic import of any other file would fail here.
  const register = loneHook();
  const dir = project({ 'app.mjs': 'console.log(Math.random(), Date.now() > 0);\n' });
  const hooked = (env: Record<string, string>, load = `--import="${register}"`) => {
    const run = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: load, ...env } });
    assert.equal(run.stderr, '');
    return { run, trace: run.traces.get('0')! };
  };
  const observed = hooked({});
  assert.equal(observed.trace.header.tool.version, '0.0.0-lone');
  assert.equal(eventsOf(observed.trace, 'Math.random').length, 1);
  // the CommonJS preload the CLI uses records alike
  const preloaded = hooked({}, `--require="${register.replace(/\.js$/, '.cjs')}"`).trace;
  assert.equal(eventsOf(preloaded, 'Math.random').length, 1);
  // perturb and replay code is inlined
  assert.equal(
    hooked({ DETDRIFT_MODE: 'perturb', DETDRIFT_SEED: '3', DETDRIFT_PERTURB: 'dir-order' }).trace.header.mode,
    'perturb',
  );
  const replayed = hooked({ DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: observed.run.traceDir });
  assert.equal(replayed.trace.header.mode, 'replay');
  assert.equal(replayed.run.stdout, observed.run.stdout, 'the recorded draw is fed back');
});

test('a hook whose bundle cannot be read or compiled says so once, with its code, and the program runs as without it', () => {
  const dir = project({ 'app.mjs': 'console.log(typeof Math.random());\n' });
  const plain = runPlain(['app.mjs'], { cwd: dir });
  for (const [what, spoil] of [
    ['a directory in its place', (bundle: string) => mkdirSync(bundle)],
    ['a bundle that does not compile', (bundle: string) => writeFileSync(bundle, '(function () { return start; ')],
  ] as const) {
    const register = loneHook();
    const bundle = join(dirname(register), 'bundle.js');
    rmSync(bundle);
    spoil(bundle);
    const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `--import="${register}"` } });
    assert.deepEqual([hooked.code, hooked.stdout], [plain.code, plain.stdout], what);
    assert.match(
      hooked.stderr,
      /^detdrift: ERR_DETDRIFT_START: cannot load the hook: .+ \(not recording; the program continues\)\n$/,
      what,
    );
    assert.equal(hooked.traces.size, 0, what);
  }
});

/** What a disk damages at once. */
const SECTOR = 512;

test("the hook's code cache is written once, used after, replaced when unreadable, never shared by two bundles, and never recorded", () => {
  const register = loneHook();
  const cache = tempDir('detdrift-code-cache-');
  const dir = project({ 'app.mjs': 'console.log(typeof Math.random());\n' });
  const run = (env: Record<string, string> = {}) =>
    runHooked(['app.mjs'], {
      cwd: dir,
      env: { NODE_OPTIONS: `--import="${register}"`, DETDRIFT_CODE_CACHE: cache, ...env },
    });
  // The run that writes the cache records what one that reads it does: the program's calls only.
  const recorded = (hooked: HookedRun) => {
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, 'number\n', '']);
    assert.deepEqual(
      hooked.traces.get('0')!.events.map((event) => `${event.api} (${event.form})`),
      ['Math.random (call)', 'process.stdout (write)', 'process.exit (exit)'],
    );
  };
  const files = () => readdirSync(cache).sort();

  recorded(run());
  const [file] = files();
  assert.deepEqual(files(), [file], 'one whole file, no partial one left');
  const path = join(cache, file!);
  if (process.platform !== 'win32') assert.equal(statSync(path).mode & 0o777, 0o600);
  const made = statSync(path);

  recorded(run());
  assert.equal(statSync(path).ino, made.ino, 'a cache V8 takes is not written again');

  // Release builds of V8 check a cache's header, not its bytes: one changed in the middle would
  // run, and crash the process. The file's checksum catches a damaged block of the disk (a sector,
  // 512 bytes), and the run compiles afresh.
  for (const where of ['first', 'middle', 'last']) {
    // each written cache has the size of its own bytecode: the block is found in the file as it is now
    const bytes = readFileSync(path);
    const at = where === 'first' ? 0 : where === 'middle' ? bytes.length >> 1 : bytes.length - SECTOR;
    for (let i = at; i < at + SECTOR; i++) bytes[i]! ^= 0x5a;
    writeFileSync(path, bytes);
    recorded(run());
    assert.notDeepEqual(readFileSync(path), bytes, `a cache changed in its ${where} block is replaced`);
  }
  // What a crash leaves of a block that never reached the disk: zeros. Where the words the checksum
  // samples there were zeros already, the sum cannot see it: here it is made to match.
  const bytes = readFileSync(path);
  const block = CHECKSUM_BYTES + ((bytes.length >> 1) & ~(SECTOR - 1));
  bytes.fill(0, block, block + SECTOR);
  checksum(bytes.subarray(CHECKSUM_BYTES)).copy(bytes, 0);
  writeFileSync(path, bytes);
  recorded(run());
  assert.notDeepEqual(readFileSync(path), bytes, 'a cache with a zeroed block is replaced');

  // V8 rejects a cache made under other flags: they get a file of their own.
  recorded(run({ NODE_OPTIONS: `--import="${register}" --stack-trace-limit=50` }));
  assert.equal(files().length, 2);

  // V8 checks a cache against its source's length only: a rebuilt bundle of the same length must
  // not run the old one's bytecode. This one words its start-up failure differently.
  const bundle = join(dirname(register), 'bundle.js');
  const text = readFileSync(bundle, 'utf8');
  assert.equal(text.split('(not recording; the program continues)').length, 2);
  writeFileSync(
    bundle,
    text.replace('(not recording; the program continues)', '(NOT recording; the program continues)'),
  );
  const failed = run({ DETDRIFT_MODE: 'sideways' });
  assert.match(failed.stderr, /^detdrift: ERR_DETDRIFT_\w+: .*\(NOT recording; the program continues\)\n$/);
  assert.equal(failed.stdout, 'number\n');
  assert.equal(files().length, 3, 'each bundle has a cache of its own');
});

test("the code cache lives in a directory of the user's own: by default in the temporary directory, never one others can write or a relative one, and not at all when off", {
  skip: process.platform === 'win32',
}, () => {
  const dir = project({ 'app.mjs': 'console.log(typeof Date.now());\n' });
  const run = (env: Record<string, string>) => {
    const hooked = runHooked(['app.mjs'], { cwd: dir, env });
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [0, 'number\n', '']);
    assert.equal(eventsOf(hooked.traces.get('0')!, 'Date.now').length, 1);
  };
  const temporary = tempDir('detdrift-tmpdir-');
  run({ TMPDIR: temporary, TMP: temporary, TEMP: temporary });
  const [own] = readdirSync(temporary);
  assert.equal(own, `detdrift-code-cache-${process.getuid!()}`);
  assert.equal(statSync(join(temporary, own!)).mode & 0o777, 0o700);
  assert.equal(readdirSync(join(temporary, own!)).length, 1);
  // os.tmpdir's rules, read without loading node:os: the first of TMPDIR, TMP and TEMP that is set,
  // without a trailing slash
  const second = tempDir('detdrift-tmpdir-');
  run({ TMPDIR: '', TMP: `${second}/`, TEMP: temporary });
  assert.deepEqual(readdirSync(second), [own]);

  const open = tempDir('detdrift-open-cache-');
  chmodSync(open, 0o777);
  run({ DETDRIFT_CODE_CACHE: open });
  assert.deepEqual(readdirSync(open), [], 'a directory others can write to is not used');

  const notDirectory = join(tempDir('detdrift-file-cache-'), 'file');
  writeFileSync(notDirectory, 'not a directory');
  run({ DETDRIFT_CODE_CACHE: notDirectory });
  assert.equal(readFileSync(notDirectory, 'utf8'), 'not a directory');

  // relative to each process's own working directory, where the program would see it made
  const before = readdirSync(dir).sort();
  run({ DETDRIFT_CODE_CACHE: 'cache' });
  assert.deepEqual(readdirSync(dir).sort(), before);

  const off = tempDir('detdrift-tmpdir-');
  run({ DETDRIFT_CODE_CACHE: 'off', TMPDIR: off, TMP: off, TEMP: off });
  assert.deepEqual(readdirSync(off), []);
});
