import assert from 'node:assert/strict';
import cryptoModule from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { install } from '../../instrument/crypto.js';
import type { Recorder } from '../../instrument/recorder.js';
import { murmurReference } from '../murmur-reference.js';
import {
  assertSameAsPlain,
  eventsOf,
  project,
  runHooked,
  runHookedOk,
  siteOf,
  type HookedRun,
  type Trace,
} from '../helpers.js';

const hexDigest = (hex: string) => murmurReference(Buffer.from(hex, 'hex'));
const textDigest = (text: string) => murmurReference(Buffer.from(text, 'utf8'));
/** A randomInt's digest: of its double's 8 little-endian bytes. */
const numberDigest = (value: number) => murmurReference(doubleBytes(value));

function doubleBytes(value: number): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeDoubleLE(value);
  return bytes;
}

/** Every crypto event as [api, form, value, file, line]. */
function cryptoEvents(trace: Trace): unknown[][] {
  return trace.events
    .filter((event) => event.family === 'crypto')
    .map((event) => [event.api, event.form, event.value, siteOf(trace, event)?.file, siteOf(trace, event)?.line]);
}

function traceOf(run: HookedRun): Trace {
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, '');
  return run.traces.get('0')!;
}

test('every crypto API is recorded once, with its form, site and a digest of what the program got', () => {
  const dir = project({
    'app.mjs': [
      "import crypto, { randomUUID, randomBytes, randomFillSync, randomInt, getRandomValues, webcrypto } from 'node:crypto';",
      'const hex = (v) => (ArrayBuffer.isView(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : Buffer.from(v)).toString("hex");',
      'const seen = [];',
      'seen.push(randomUUID());',
      'seen.push(hex(randomBytes(16)));',
      'seen.push(hex(randomFillSync(Buffer.alloc(8))));',
      'seen.push(randomInt(-50, -10));',
      'seen.push(hex(getRandomValues(new Uint8Array(12))));',
      'seen.push(hex(globalThis.crypto.getRandomValues(new Uint32Array(3))));',
      'seen.push(webcrypto.randomUUID());',
      'seen.push(hex(crypto.randomFillSync(new ArrayBuffer(5))));',
      'randomBytes(5, () => {});',
      'crypto.randomFill(new Uint16Array(4), () => {});',
      'randomInt(3, 9, () => {});',
      'randomInt(10, () => {});',
      'console.log(JSON.stringify(seen));',
    ].join('\n'),
  });
  const run = runHooked(['app.mjs'], { cwd: dir });
  const trace = traceOf(run);
  const [uuid, bytes, fillSync, int, values, web, webUuid, arrayBuffer] = JSON.parse(run.stdout);
  assert.deepEqual(cryptoEvents(trace), [
    ['crypto.randomUUID', 'module', textDigest(uuid), 'app.mjs', 4],
    ['crypto.randomBytes', 'sync', hexDigest(bytes), 'app.mjs', 5],
    ['crypto.randomFillSync', 'sync', hexDigest(fillSync), 'app.mjs', 6],
    ['crypto.randomInt', 'sync', numberDigest(int), 'app.mjs', 7],
    ['crypto.getRandomValues', 'module', hexDigest(values), 'app.mjs', 8],
    ['crypto.getRandomValues', 'webcrypto', hexDigest(web), 'app.mjs', 9],
    ['crypto.randomUUID', 'webcrypto', textDigest(webUuid), 'app.mjs', 10],
    ['crypto.randomFillSync', 'sync', hexDigest(arrayBuffer), 'app.mjs', 11],
    ['crypto.randomBytes', 'callback', 5, 'app.mjs', 12],
    ['crypto.randomFill', 'callback', 8, 'app.mjs', 13],
    ['crypto.randomInt', 'callback', 6, 'app.mjs', 14],
    ['crypto.randomInt', 'callback', 10, 'app.mjs', 15],
  ]);
  assert.ok(int >= -50 && int < -10);
});

test('randomInt is kept as a digest, and in clear only in a trace that holds values for replay', () => {
  const dir = project({
    'app.mjs': "import { randomInt } from 'node:crypto';\nconsole.log(randomInt(-(2 ** 40), 2 ** 40));\n",
  });
  for (const hold of [undefined, 'bytes']) {
    const run = runHooked(['app.mjs'], { cwd: dir, env: { DETDRIFT_HOLD: hold } });
    const int = Number(run.stdout);
    const [event] = eventsOf(traceOf(run), 'crypto.randomInt', 'sync');
    const file = readFileSync(join(run.traceDir, '0.ddtrace'));
    if (hold) assert.equal(event!.value, int, 'a negative integer survives the trace');
    else assert.ok(event!.value === numberDigest(int) && !file.includes(doubleBytes(int)), 'neither shown nor written');
  }
});

test('CommonJS require and a dependency in node_modules are attributed name@version', () => {
  const dir = project({
    'app.cjs':
      "const token = require('token-dep');\nconst { randomInt } = require('node:crypto');\nconsole.log(token.make().length, randomInt(5) < 5);\n",
    'node_modules/token-dep/package.json': { name: 'token-dep', version: '2.0.1', main: 'index.js' },
    'node_modules/token-dep/index.js': [
      "const crypto = require('crypto');",
      'exports.make = function make() {',
      '  return crypto.randomBytes(4).toString("hex") + globalThis.crypto.randomUUID();',
      '};',
    ].join('\n'),
  });
  const run = runHooked(['app.cjs'], { cwd: dir });
  assert.equal(run.stdout, '44 true\n');
  const trace = traceOf(run);
  for (const [api, form] of [
    ['crypto.randomBytes', 'sync'],
    ['crypto.randomUUID', 'webcrypto'],
  ] as const) {
    const [event, ...more] = eventsOf(trace, api, form);
    assert.equal(more.length, 0, `${api} recorded once`);
    const frames = trace.sites.get(event!.site)!.frames;
    assert.deepEqual(
      { ...frames[0], column: 0 },
      { file: 'token-dep@2.0.1/index.js', line: 3, column: 0, fn: 'make', package: 'token-dep@2.0.1' },
    );
    assert.deepEqual([frames[1]!.file, frames[1]!.line, frames[1]!.package], ['app.cjs', 3, null]);
  }
  const [int] = eventsOf(trace, 'crypto.randomInt', 'sync');
  assert.deepEqual([siteOf(trace, int!)?.file, siteOf(trace, int!)?.line], ['app.cjs', 3]);
});

test('callback forms record at call time, before the callback runs', () => {
  const dir = project({
    'app.mjs': "import { randomBytes } from 'node:crypto';\nrandomBytes(3, () => Math.random());\nMath.random();\n",
  });
  const trace = traceOf(runHooked(['app.mjs'], { cwd: dir }));
  const order = trace.events
    .filter((event) => event.family === 'crypto' || event.api === 'Math.random')
    .map((event) => [event.api, siteOf(trace, event)?.line]);
  assert.deepEqual(order, [
    ['crypto.randomBytes', 2],
    ['Math.random', 3],
    ['Math.random', 2],
  ]);
});

test('each call is recorded exactly once: module getRandomValues goes through Crypto.prototype, aliases through randomBytes', () => {
  const dir = project({
    'app.cjs': [
      "const crypto = require('node:crypto');",
      'for (let i = 0; i < 3; i++) crypto.getRandomValues(new Uint8Array(4));',
      'for (let i = 0; i < 2; i++) globalThis.crypto.getRandomValues(new Uint8Array(4));',
      'console.log(crypto.pseudoRandomBytes === crypto.randomBytes, crypto.pseudoRandomBytes(4).length);',
      '// The depth counter: a draw made while randomUUID reads its options is folded into that call.',
      'crypto.randomUUID({ get disableEntropyCache() { crypto.randomBytes(1); return false; } });',
    ].join('\n'),
  });
  const run = runHooked(['app.cjs'], { cwd: dir });
  assert.equal(run.stdout, 'true 4\n');
  assert.equal(eventsOf(traceOf(run), 'crypto.randomUUID').length, 1);
  const trace = traceOf(run);
  assert.equal(eventsOf(trace, 'crypto.getRandomValues', 'module').length, 3);
  assert.equal(eventsOf(trace, 'crypto.getRandomValues', 'webcrypto').length, 2);
  const aliases = eventsOf(trace, 'crypto.randomBytes');
  assert.deepEqual(
    aliases.map((event) => [event.form, siteOf(trace, event)?.line]),
    [['sync', 4]],
  );
});

test('synchronous draws create no async context, so they move no later context; a callback draw still runs in its own', () => {
  const dir = project({
    'app.mjs': [
      "import crypto, { randomBytes, randomFillSync, randomInt, randomUUID } from 'node:crypto';",
      'for (let i = 0; i < Number(process.env.DRAWS); i++) {',
      '  randomBytes(8); randomFillSync(new Uint8Array(8)); randomInt(9); crypto.getRandomValues(new Uint8Array(8)); globalThis.crypto.getRandomValues(new Uint8Array(8));',
      '  for (let j = 0; j < 130; j++) randomUUID(); // past the 128 UUIDs one refill of its cache holds',
      '}',
      'setTimeout(() => { Math.random(); randomBytes(4, () => Math.random()); }, 0);',
    ].join('\n'),
  });
  const contextsOfMathRandom = (draws: number) => {
    const trace = traceOf(runHooked(['app.mjs'], { cwd: dir, env: { DRAWS: String(draws) } }));
    return eventsOf(trace, 'Math.random').map((event) => trace.contexts.get(event.ctx));
  };
  const none = contextsOfMathRandom(0);
  assert.deepEqual(
    none.map((context) => context?.type),
    ['Timeout', 'RANDOMBYTESREQUEST'],
  );
  assert.deepEqual(contextsOfMathRandom(3), none);
});

test('crypto stays transparent: results, argument errors, callbacks, shapes', () => {
  const dir = project({
    'transparent.mjs': `
      import crypto, { randomBytes as named } from 'node:crypto';
      const show = (...values) => console.log(values.map((v) => typeof v === 'string' ? v : JSON.stringify(v)).join(' '));
      const attempt = (label, fn) => {
        try { const v = fn(); show(label, 'ok', typeof v, v?.constructor?.name, v?.length ?? v?.byteLength); }
        catch (e) { show(label, e.constructor.name, e.name, e.code, e.message, e instanceof Error); }
      };
      const fns = ['randomUUID', 'randomBytes', 'randomFill', 'randomFillSync', 'randomInt', 'getRandomValues'];
      show('shape', fns.map((k) => [crypto[k].name, crypto[k].length, String(crypto[k]).length]));
      show('web', Object.getOwnPropertyNames(Object.getPrototypeOf(crypto.webcrypto)), String(globalThis.crypto.getRandomValues));
      show('alias before', typeof Object.getOwnPropertyDescriptor(crypto, 'prng').get, named === crypto.randomBytes);
      show('alias', crypto.prng === crypto.randomBytes, typeof Object.getOwnPropertyDescriptor(crypto, 'prng').value);
      attempt('uuid', () => crypto.randomUUID({ disableEntropyCache: true }));
      attempt('uuid bad option', () => crypto.randomUUID({ disableEntropyCache: 1 }));
      attempt('bytes', () => crypto.randomBytes(7));
      attempt('bytes negative', () => crypto.randomBytes(-1));
      attempt('bytes string', () => crypto.randomBytes('8'));
      attempt('bytes bad callback', () => crypto.randomBytes(8, 'cb'));
      attempt('fill no callback', () => crypto.randomFill(Buffer.alloc(4)));
      attempt('fill sync offset', () => crypto.randomFillSync(Buffer.alloc(4), 5));
      attempt('fill sync string', () => crypto.randomFillSync('abcd'));
      attempt('int', () => crypto.randomInt(2, 3));
      attempt('int reversed', () => crypto.randomInt(5, 2));
      attempt('int fraction', () => crypto.randomInt(1.5));
      attempt('values float', () => crypto.getRandomValues(new Float64Array(2)));
      attempt('values quota', () => crypto.getRandomValues(new Uint8Array(65537)));
      attempt('values this', () => globalThis.crypto.getRandomValues.call({}, new Uint8Array(2)));
      attempt('uuid this', () => crypto.webcrypto.randomUUID.call(null));
      // Chained, not concurrent: two thread-pool jobs may finish in either order.
      const callback = (label, next) => function (...args) {
        show(label, this?.constructor?.name ?? String(this), args.length, args[0], args[1]?.length ?? typeof args[1]);
        next?.();
      };
      crypto.randomBytes(6, callback('bytes cb', () =>
        crypto.randomFill(new Uint8Array(3), 1, callback('fill cb', () => crypto.randomInt(4, callback('int cb'))))));
      process.exitCode = 3;
    `,
  });
  assertSameAsPlain(['transparent.mjs'], { cwd: dir }, 3);
  // control mode's substitutes call the real function first: the same errors, callbacks and shapes
  assertSameAsPlain(['transparent.mjs'], { cwd: dir, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '1' } }, 3);
});

test('uninstall puts back every descriptor it replaced, and a second install is refused', () => {
  const web = Object.getPrototypeOf(cryptoModule.webcrypto) as object;
  // Descriptor fields compared by identity: reading into values would trip lazy getters (constants).
  const snapshot = () =>
    [cryptoModule, web].flatMap((target) =>
      Reflect.ownKeys(target).map((key) => {
        const { value, get, set, writable, enumerable, configurable } = Object.getOwnPropertyDescriptor(target, key)!;
        return [key, value, get, set, writable, enumerable, configurable];
      }),
    );
  const before = snapshot();
  const events: unknown[] = [];
  const recorder = {
    on: true,
    hold: false,
    contexts: { syncDraws: 0 },
    site: () => 0,
    replay: () => undefined,
    digest: (...args: unknown[]) => events.push(args),
    number: () => {},
    fail: () => {},
  };
  const handle = install(recorder as unknown as Recorder);
  assert.throws(() => install(recorder as unknown as Recorder), { code: 'ERR_DETDRIFT_INSTALLED' });
  const aliases = cryptoModule as unknown as { rng: unknown };
  assert.equal(aliases.rng, cryptoModule.randomBytes, 'the alias materializes as the wrapper');
  cryptoModule.randomBytes(2);
  assert.equal(events.length, 1);
  handle.uninstall();
  const after = snapshot();
  assert.equal(after.length, before.length);
  before.forEach((fields, i) =>
    fields.forEach((field, j) => assert.equal(after[i]![j], field, `${String(fields[0])}[${j}]`)),
  );
});

test('replaying a trace that kept only digests gives each UUID and each buffer a fresh value, never the digest, and pins the rest', () => {
  const dir = project({
    'app.cjs':
      "const crypto = require('node:crypto');\nconsole.log(JSON.stringify([crypto.randomUUID(), crypto.randomBytes(4).toString('hex'), Math.random()]));\n",
  });
  const recorded = runHookedOk(['app.cjs'], { cwd: dir });
  const [uuid, bytes, draw] = JSON.parse(recorded.stdout) as [string, string, number];
  const replayed = runHookedOk(['app.cjs'], {
    cwd: dir,
    env: { DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: recorded.traceDir },
  });
  const [uuidAgain, bytesAgain, drawAgain] = JSON.parse(replayed.stdout) as [string, string, number];
  assert.match(
    uuidAgain,
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    'a UUID, not a 16-digit digest',
  );
  assert.notEqual(uuidAgain, uuid);
  assert.match(bytesAgain, /^[0-9a-f]{8}$/);
  assert.notEqual(bytesAgain, bytes, 'fresh bytes (equal by chance once in 2^32)');
  assert.equal(drawAgain, draw, 'a Math.random the trace holds is fed back');
  assert.equal(
    eventsOf(replayed.traces.get('0')!, 'replay').length,
    0,
    'no replay mismatch: the calls kept their places',
  );
});
