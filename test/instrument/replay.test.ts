import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { Api } from '../../tracer/apis.js';
import { eventsOf, project, runHookedOk } from '../helpers.js';

// Replay mode end to end: a run recorded by the real hook, fed back by the real hook in a child
// process (instrument/replay.ts keeps the recorded calls in columns by rank).

const replayOf = (dir: string, app: string, traceDir: string, env: Record<string, string> = {}) =>
  runHookedOk([app], { cwd: dir, env: { DETDRIFT_MODE: 'replay', DETDRIFT_REPLAY: traceDir, ...env } });

test('replay feeds each async context its own calls in order, whatever order the contexts run in, values of every kind', () => {
  const dir = project({
    // Two timers, each a context of its own that calls every clock and draws; FLIP swaps their
    // delays, so the replayed run fires them the other way round from the recorded one.
    'app.mjs': [
      "import { randomBytes } from 'node:crypto';",
      'const out = {};',
      'const calls = (name) => () => {',
      '  out[name] = [];',
      '  for (let i = 0; i < 3; i++)',
      '    out[name].push([Math.random(), Date.now(), performance.now(), process.hrtime(),',
      "      String(process.hrtime.bigint()), randomBytes(4).toString('hex')]);",
      '  if (out.a && out.b) console.log(JSON.stringify({ a: out.a, b: out.b, first: Object.keys(out)[0] }));',
      '};',
      'const [a, b] = process.env.FLIP ? [20, 1] : [1, 20];',
      "setTimeout(calls('a'), a);",
      "setTimeout(calls('b'), b);",
    ].join('\n'),
  });
  const recorded = runHookedOk(['app.mjs'], { cwd: dir, env: { DETDRIFT_HOLD: 'bytes' } });
  const replayed = replayOf(dir, 'app.mjs', recorded.traceDir);
  assert.equal(replayed.stdout, recorded.stdout, 'every value fed back: numbers, hrtime pairs, bigints, bytes');
  assert.equal(eventsOf(replayed.traces.get('0')!, 'replay').length, 0);

  // Each timer's context is named by its parent and ordinal, not by when it runs: b, fired first
  // now, still gets b's recorded values.
  const flipped = replayOf(dir, 'app.mjs', recorded.traceDir, { FLIP: '1' });
  const want = JSON.parse(recorded.stdout) as Record<string, unknown>;
  assert.equal(want.first, 'a');
  assert.deepEqual(JSON.parse(flipped.stdout), { ...want, first: 'b' });
  assert.equal(eventsOf(flipped.traces.get('0')!, 'replay').length, 0);
});

test('a recording with more calls than its size suggests (control mode derives values) replays whole; a limit pins the first calls and shifts the rest', () => {
  const dir = project({
    'app.cjs': [
      'const draws = [];',
      'for (let i = 0; i < 50000; i++) draws.push(Math.random());',
      'console.log(JSON.stringify(draws.reduce((sum, draw) => sum + draw, 0)));',
    ].join('\n'),
  });
  const recorded = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_MODE: 'control', DETDRIFT_SEED: '7' } });
  const file = join(recorded.traceDir, '0.ddtrace');
  // the replayer makes room for size/8 calls at first: this trace holds more, so its columns grow
  assert.ok(statSync(file).size / 8 < 50000, `the trace is ${statSync(file).size} bytes`);
  const values = eventsOf(recorded.traces.get('0')!, 'Math.random').map((event) => event.value as number);
  assert.equal(values.length, 50000);

  const replayed = replayOf(dir, 'app.cjs', recorded.traceDir);
  assert.equal(replayed.stdout, recorded.stdout);
  assert.deepEqual(
    eventsOf(replayed.traces.get('0')!, 'Math.random').map((event) => event.value),
    values,
  );

  // Bisection's probe: the first 30,000 recorded values pinned, the others moved half the unit interval.
  const probed = replayOf(dir, 'app.cjs', recorded.traceDir, {
    DETDRIFT_REPLAY_LIMIT: '0:30000',
    DETDRIFT_REPLAY_FRESH: 'shift',
  });
  const expected = values.map((value, rank) => (rank < 30000 ? value : (value + 0.5) % 1));
  assert.equal(
    JSON.parse(probed.stdout),
    expected.reduce((sum, draw) => sum + draw, 0),
  );
});

test('the first call the recording does not have ends the feeding: a call too many, or one from another site', () => {
  const dir = project({
    'app.cjs': [
      'const draws = [];',
      'const calls = Number(process.env.CALLS);',
      'for (let i = 0; i < calls; i++) draws.push(Math.random());',
      'if (process.env.ELSEWHERE) draws.push(Math.random());',
      'console.log(JSON.stringify(draws));',
    ].join('\n'),
  });
  // every call's stack taken, so that a call from another line is told apart
  const sites = { DETDRIFT_SITES: '1000/1/0' };
  const recorded = runHookedOk(['app.cjs'], { cwd: dir, env: { CALLS: '3', ...sites } });
  const want = JSON.parse(recorded.stdout) as number[];

  const tooMany = replayOf(dir, 'app.cjs', recorded.traceDir, { CALLS: '5', ...sites });
  const got = JSON.parse(tooMany.stdout) as number[];
  assert.deepEqual(got.slice(0, 3), want);
  assert.equal(new Set([...want, got[3], got[4]]).size, 5, 'fresh values after the last recorded call');
  const [mismatch, ...more] = eventsOf(tooMany.traces.get('0')!, 'replay');
  assert.equal(more.length, 0, 'told once');
  assert.match(
    String(mismatch!.value),
    /^Math\.random: the recording has no such call in the recording, this run called it at app\.cjs:3:/,
  );

  const elsewhere = replayOf(dir, 'app.cjs', recorded.traceDir, { CALLS: '2', ELSEWHERE: '1', ...sites });
  const drawn = JSON.parse(elsewhere.stdout) as number[];
  assert.deepEqual(drawn.slice(0, 2), want.slice(0, 2));
  assert.notEqual(drawn[2], want[2], "the third call, from line 4, is not given line 3's value");
  assert.match(
    String(eventsOf(elsewhere.traces.get('0')!, 'replay')[0]!.value),
    /^Math\.random: the recording has app\.cjs:3:\d+, this run called it at app\.cjs:4:/,
  );
});

test("take() reads nothing the program can change: an accessor of the program's at Array.prototype[0] is never called, and sees no table of the hook's", () => {
  const dir = project({
    'app.cjs': [
      'let reads = 0;',
      'let reader = null;',
      'const draws = [];',
      "Object.defineProperty(Array.prototype, '0', {",
      '  configurable: true,',
      // a site key of the program's: a call the recording took no stack of would be checked against it
      "  get() { reads++; reader = this; return 'elsewhere.js:1:1'; },",
      "  set(value) { Object.defineProperty(this, '0', { value, writable: true, enumerable: true, configurable: true }); },",
      '});',
      'for (let i = 0; i < 10; i++) draws[draws.length] = Math.random();',
      'delete Array.prototype[0];',
      'console.log(JSON.stringify({ reads, reader: reader === null ? null : typeof reader, draws }));',
    ].join('\n'),
  });
  // the recording takes the first call's stack only; the replay takes every call's
  const recorded = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_SITES: '1/1000000/0' } });
  const replayed = replayOf(dir, 'app.cjs', recorded.traceDir, { DETDRIFT_SITES: '1000/1/0' });
  assert.deepEqual(JSON.parse(replayed.stdout), JSON.parse(recorded.stdout));
  assert.deepEqual(eventsOf(replayed.traces.get('0')!, 'replay'), []);
});

test("take() asking for an API the context did not record reads no index of the program's Array.prototype", () => {
  const dir = project({
    'app.cjs': [
      // Math.random's API id: where take() would look for the context's queue
      'let reads = 0;',
      `Object.defineProperty(Array.prototype, '${Api.mathRandom}', {`,
      '  configurable: true,',
      '  get() { reads++; return { next: 0, last: 0 }; },',
      `  set(value) { Object.defineProperty(this, '${Api.mathRandom}', { value, writable: true, enumerable: true, configurable: true }); },`,
      '});',
      'const out = [Date.now()];',
      'if (process.env.EXTRA) out[out.length] = Math.random();',
      `delete Array.prototype['${Api.mathRandom}'];`,
      'console.log(JSON.stringify({ reads }));',
    ].join('\n'),
  });
  const recorded = runHookedOk(['app.cjs'], { cwd: dir });
  const replayed = replayOf(dir, 'app.cjs', recorded.traceDir, { EXTRA: '1' });
  assert.deepEqual(JSON.parse(replayed.stdout), { reads: 0 });
  assert.match(
    String(eventsOf(replayed.traces.get('0')!, 'replay')[0]?.value),
    /^Math\.random: the recording has no such call/,
  );
});

test("values past the limit are shifted with the hook's own built-ins: a program's Uint8Array[Symbol.hasInstance] and Array.isArray change nothing", () => {
  const dir = project({
    'app.cjs': [
      "const { randomBytes } = require('node:crypto');",
      'Object.defineProperty(Uint8Array, Symbol.hasInstance, { value: () => false, configurable: true });',
      'Array.isArray = () => false;',
      "console.log(JSON.stringify([randomBytes(4).toString('hex'), process.hrtime()]));",
    ].join('\n'),
  });
  const recorded = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_HOLD: 'bytes' } });
  const [bytes, [seconds, nanoseconds]] = JSON.parse(recorded.stdout) as [string, [number, number]];
  // nothing pinned: every value is the recorded one shifted
  const shifted = replayOf(dir, 'app.cjs', recorded.traceDir, {
    DETDRIFT_REPLAY_LIMIT: '0:0',
    DETDRIFT_REPLAY_FRESH: 'shift',
  });
  const flipped = Buffer.from(bytes, 'hex').map((byte) => byte ^ 0xff);
  assert.deepEqual(JSON.parse(shifted.stdout), [Buffer.from(flipped).toString('hex'), [seconds + 1000, nanoseconds]]);
});
