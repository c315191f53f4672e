import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { assertSameAsPlain, eventsOf, project, REGISTER, runHooked, tempDir } from './helpers.js';

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
  const run = runHooked(['root.mjs'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const digest = { file: 'package-lock.json', sha256: sha256(lock) };
  assert.deepEqual(run.traces.get('0')!.header.lockfile, digest);
  assert.deepEqual(run.traces.get('0.1')!.header.lockfile, digest);
});

test('the hook is one self-contained file: copied alone into a bare package it records in every mode and names its version', () => {
  // Nothing beside it, no node_modules: a static or dynamic import of any other file would fail here.
  const lone = tempDir('detdrift-lone-');
  mkdirSync(join(lone, 'dist', 'instrument'), { recursive: true });
  copyFileSync(REGISTER, join(lone, 'dist', 'instrument', 'register.js'));
  writeFileSync(join(lone, 'package.json'), JSON.stringify({ name: 'detdrift', version: '0.0.0-lone', type: 'module' }));
  const dir = project({ 'app.mjs': 'console.log(Math.random(), Date.now() > 0);\n' });
  const hooked = (env: Record<string, string>) => {
    const run = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `--import="${join(lone, 'dist', 'instrument', 'register.js')}"`, ...env } });
    assert.equal(run.stderr, '');
    return { run, trace: run.traces.get('0')! };
  };
  const observed = hooked({});
  assert.equal(observed.trace.header.tool.version, '0.0.0-lone');
  assert.equal(eventsOf(observed.trace, 'Math.random').length, 1);
  // perturb and replay code is inlined, evaluated only in its mode
  assert.equal(hooked({ DETDRIFT_MODE: 'perturb', DETDRIFT_SEED: '3', DETDRIFT_PERTURB: 'dir-order' }).trace.header.mode, 'perturb');
  const replayed = hooked({ DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: observed.run.traceDir });
  assert.equal(replayed.trace.header.mode, 'replay');
  assert.equal(replayed.run.stdout, observed.run.stdout, 'the recorded draw is fed back');
});
