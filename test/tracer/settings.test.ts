import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { decode, encode, HOOK_VARIABLES, type HookSettings } from '../../tracer/settings.js';
import { project, REGISTER, REPO, runHooked, tempDir } from '../helpers.js';

const CWD = '/srv/app';
const CONTROL: HookSettings = {
  traceDir: '/srv/app/traces',
  mode: 'control',
  seed: '0x2a',
  root: CWD,
  sites: { first: 1, every: 100000, doubling: 0 },
  stacksAt: [
    { lineage: '0.w1', api: 5, ordinal: 1234 },
    { lineage: '0', api: 0, ordinal: 0 },
  ],
  spawn: '0.2',
  lockfile: { file: 'pnpm-lock.yaml', sha256: 'ab'.repeat(32) },
  hold: true,
  replay: null,
  replayLimit: null,
  replayFresh: 'real',
  perturb: '',
  owner: 4242,
};
const REPLAY: HookSettings = {
  ...CONTROL,
  mode: 'replay',
  seed: null,
  stacksAt: [],
  spawn: null,
  lockfile: null,
  hold: false,
  replay: '/srv/app/recorded',
  replayLimit: { lineage: '0.1', count: 12 },
  replayFresh: 'shift',
};
const PERTURB: HookSettings = { ...CONTROL, mode: 'perturb', seed: '7', perturb: 'dir-order:case,clock:dst' };

test('the settings the CLI encodes are the settings the hook decodes, in every mode', () => {
  for (const settings of [CONTROL, REPLAY, PERTURB]) {
    assert.deepEqual(decode(encode(settings), CWD), settings, settings.mode);
  }
  const defaults = decode({}, CWD);
  assert.deepEqual(decode(encode(defaults), CWD), defaults);
});

test('a setting given as null or off unsets its variable; a setting not given is left alone', () => {
  const env = encode({ seed: null, spawn: null, hold: false, mode: 'observe' });
  assert.deepEqual(env, {
    DETDRIFT_SEED: undefined,
    DETDRIFT_SPAWN: undefined,
    DETDRIFT_HOLD: undefined,
    DETDRIFT_MODE: 'observe',
  });
});

test('the hook reads and the CLI writes no variable the contract does not name', () => {
  const read = new Set<string>();
  const env = new Proxy(encode(PERTURB) as Record<string, string | undefined>, {
    get: (target, key) => {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key);
    },
  });
  decode(env, CWD);
  assert.ok(read.size > 0);
  assert.deepEqual(
    [...read].filter((key) => !HOOK_VARIABLES.includes(key as never)),
    [],
  );
  assert.deepEqual(
    Object.keys(encode(CONTROL)).filter((key) => !HOOK_VARIABLES.includes(key as never)),
    [],
  );
});

test('a hooked program and the children it starts read only the DETDRIFT_* variables the contract names', () => {
  // A preload before the hook watches process.env: each process appends the DETDRIFT_* names that
  // detdrift's own code read from it (not Node's, which copies every variable for a child).
  const log = join(tempDir('detdrift-env-'), 'reads.jsonl');
  const dir = project({
    'spy.cjs': `
      const fs = require('node:fs');
      const read = new Set();
      // the first caller below the trap that is not a builtin (Object.entries) is detdrift's
      const ours = () => new Error().stack.split('\\n').slice(4).find((frame) => !frame.includes('(<anonymous>)')).includes(${JSON.stringify(join(REPO, 'dist'))});
      const watch = (key) => { if (typeof key === 'string' && key.startsWith('DETDRIFT_') && ours()) read.add(key); };
      process.env = new Proxy(process.env, {
        get(target, key) { watch(key); return Reflect.get(target, key); },
        has(target, key) { watch(key); return Reflect.has(target, key); },
      });
      process.on('exit', () => fs.appendFileSync(${JSON.stringify(log)}, JSON.stringify([...read]) + '\\n'));
    `,
    'app.js': `
      const { execFileSync } = require('node:child_process');
      execFileSync(process.execPath, ['-e', 'Math.random()'], { stdio: 'inherit' });
      console.log(Math.random() < 2);
    `,
  });
  const run = runHooked(['app.js'], {
    cwd: dir,
    // no setting: a hook that passed every DETDRIFT_* on to its children would read it
    env: {
      NODE_OPTIONS: `--require="${join(dir, 'spy.cjs')}" --require="${REGISTER.replace(/\.js$/, '.cjs')}"`,
      DETDRIFT_NOT_A_SETTING: 'x',
      DETDRIFT_MODE: 'control',
    },
  });
  assert.equal(run.stderr, '');
  assert.equal(run.stdout, 'true\n');
  const reads = readFileSync(log, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as string[]);
  assert.equal(reads.length, 2, 'the program and its child');
  const all = new Set(reads.flat());
  for (const name of [
    'DETDRIFT_TRACE',
    'DETDRIFT_MODE',
    'DETDRIFT_SPAWN',
    'DETDRIFT_PARENT',
    'DETDRIFT_CODE_CACHE',
    'DETDRIFT_TEST_FAULT',
  ])
    assert.ok(all.has(name), name);
  assert.deepEqual(
    [...all].filter((key) => !HOOK_VARIABLES.includes(key as never)),
    [],
  );
});

test('the sampling, stacks-at and replay-limit settings are read by hand, as their forms say, and refused otherwise', () => {
  const read = (env: Record<string, string>) => decode({ DETDRIFT_MODE: 'observe', ...env }, CWD);
  assert.deepEqual(read({ DETDRIFT_SITES: '64/256/64' }).sites, { first: 64, every: 256, doubling: 64 });
  assert.deepEqual(read({ DETDRIFT_SITES: '1/2' }).sites, { first: 1, every: 2, doubling: 0 });
  for (const sites of ['64', '64/', '/256', 'a/2', '1/0', '1/2/3/4', '1/2/', ' 1/2', '1/2/x', '-1/2'])
    assert.throws(() => read({ DETDRIFT_SITES: sites }), { code: 'ERR_DETDRIFT_SITES' }, sites);
  assert.deepEqual(read({ DETDRIFT_STACKS_AT: '0:5:1234,0.1.@a+b_mjs~2:7:1' }).stacksAt, [
    { lineage: '0', api: 5, ordinal: 1234 },
    { lineage: '0.1.@a+b_mjs~2', api: 7, ordinal: 1 },
  ]);
  assert.deepEqual(read({ DETDRIFT_STACKS_AT: 'a:b:5:6' }).stacksAt, [{ lineage: 'a:b', api: 5, ordinal: 6 }]);
  for (const at of ['0:mathRandom', '0:5', ':5:6', '0:5:', '0::6', '0:5:6x'])
    assert.throws(() => read({ DETDRIFT_STACKS_AT: at }), { code: 'ERR_DETDRIFT_STACKS_AT' }, at);
  const replay = { DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: '/srv/traces' };
  assert.deepEqual(read({ ...replay, DETDRIFT_REPLAY_LIMIT: '0.2:12' }).replayLimit, { lineage: '0.2', count: 12 });
  assert.deepEqual(read({ ...replay, DETDRIFT_REPLAY_LIMIT: 'a:b:3' }).replayLimit, { lineage: 'a:b', count: 3 });
  for (const limit of ['12', ':12', '0:', '0:x'])
    assert.throws(() => read({ ...replay, DETDRIFT_REPLAY_LIMIT: limit }), { code: 'ERR_DETDRIFT_REPLAY' }, limit);
});
