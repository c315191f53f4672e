/**
 * Fake timers under the hook (issue #22): each library puts its own `Date` (and timers) in place,
 * moves its clock, and puts the real ones back. From then on the program must behave exactly as
 * without the hook: the clock moves again (a busy loop on `Date.now()` ends), the built-ins are the
 * very ones it saved, and they reflect as they did. Each runs in a real child process (under the
 * real runner for Jest and Vitest) and writes what it saw; the hooked run's must be the plain run's.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { lines } from '../cli-fixtures.js';
import { eventsOf, project, REPO, runHookedOk, runPlain, type HookedRun } from '../helpers.js';

/**
 * What a program sees once the fakes are gone, written to seen.json. A clock that stays put makes
 * `spin` give up after 10^7 reads, which no machine makes in the 20 ms the loop waits for.
 */
const OBSERVE = lines(
  "const { writeFileSync: writeSeen } = require('node:fs');",
  'const spin = (read) => { const t0 = read(); for (let n = 0; read() - t0 < 20; n++) if (n > 1e7) return "stuck"; return "moves"; };',
  'const text = (value) => typeof value === "function" ? Function.prototype.toString.call(value) : typeof value === "object" ? "an object" : value;',
  'const shape = (object, key) => {',
  '  const descriptor = Object.getOwnPropertyDescriptor(object, key);',
  '  return descriptor && Object.entries(descriptor).map(([field, value]) => `${field}: ${text(value)}`);',
  '};',
  'const save = (realm = globalThis) => ({ Date: realm.Date, now: realm.Date.now, random: realm.Math.random });',
  'const seen = {};',
  'const observe = (label, saved, faked, realm = globalThis) => {',
  '  seen[label] = {',
  '    faked,',
  '    same: [realm.Date === saved.Date, realm.Date.now === saved.now, realm.Math.random === saved.random],',
  '    clock: [spin(() => realm.Date.now()), spin(() => new realm.Date().getTime()), typeof realm.Date()],',
  '    shapes: [shape(realm.Date, "now"), shape(realm.Math, "random"), shape(realm, "Date"), shape(realm.Date, "prototype")],',
  '  };',
  "  writeSeen('seen.json', JSON.stringify(seen, null, 1));",
  '};',
);

const SINON = lines(
  OBSERVE,
  "const FakeTimers = require('@sinonjs/fake-timers');",
  "const vm = require('node:vm');",
  'let saved = save();',
  "let clock = FakeTimers.install({ toFake: ['Date', 'setTimeout'], now: 1000 });",
  'clock.tick(5);',
  'let faked = [Date.now(), new Date().getTime()];',
  'clock.uninstall();',
  "observe('Date', saved, faked);",
  'saved = save();',
  'clock = FakeTimers.install();',
  'clock.tick(5);',
  'faked = [Date.now(), performance.now()];',
  'clock.uninstall();',
  "observe('everything', saved, faked);",
  "const realm = vm.runInNewContext('this');",
  'saved = save(realm);',
  "clock = FakeTimers.withGlobal(realm).install({ toFake: ['Date'], now: 1000 });",
  "faked = [realm.Date.now(), vm.runInNewContext('Date.now()', realm)];",
  'clock.uninstall();',
  "observe('vm context', saved, faked, realm);",
);

const NODE_TEST = lines(
  OBSERVE,
  "const { mock } = require('node:test');",
  'let saved = save();',
  "mock.timers.enable({ apis: ['Date', 'setTimeout'], now: 1000 });",
  'mock.timers.tick(5);',
  'let faked = [Date.now(), new Date().getTime()];',
  'mock.timers.reset();',
  "observe('mock.timers', saved, faked);",
  'saved = save();',
  "mock.method(Math, 'random', () => 0.5);",
  "mock.method(Date, 'now', () => 42);",
  'faked = [Math.random(), Date.now()];',
  'mock.restoreAll();',
  "observe('mock.method', saved, faked);",
);

const JEST = lines(
  OBSERVE,
  "test('fake timers, then the real ones', () => {",
  '  let saved = save();',
  '  jest.useFakeTimers({ now: 1000 });',
  '  jest.advanceTimersByTime(5);',
  '  let faked = [Date.now(), new Date().getTime()];',
  '  jest.useRealTimers();',
  "  observe('useFakeTimers', saved, faked);",
  '  saved = save();',
  "  jest.spyOn(Math, 'random').mockReturnValue(0.5);",
  "  jest.spyOn(Date, 'now').mockReturnValue(42);",
  '  faked = [Math.random(), Date.now()];',
  '  jest.restoreAllMocks();',
  "  observe('spyOn', saved, faked);",
  '});',
);

const VITEST = lines(
  "import { createRequire } from 'node:module';",
  "import { test, vi } from 'vitest';",
  'const require = createRequire(import.meta.url);',
  OBSERVE,
  "test('fake timers, then the real ones', () => {",
  '  let saved = save();',
  '  vi.useFakeTimers({ now: 1000 });',
  '  vi.advanceTimersByTime(5);',
  '  let faked = [Date.now(), new Date().getTime()];',
  '  vi.useRealTimers();',
  "  observe('useFakeTimers', saved, faked);",
  '  saved = save();',
  '  vi.setSystemTime(2000);',
  '  faked = [Date.now(), new Date().getTime()];',
  '  vi.useRealTimers();',
  "  observe('setSystemTime', saved, faked);",
  '  saved = save();',
  "  vi.spyOn(Math, 'random').mockReturnValue(0.5);",
  "  vi.spyOn(Date, 'now').mockReturnValue(42);",
  '  faked = [Math.random(), Date.now()];',
  '  vi.restoreAllMocks();',
  "  observe('spyOn', saved, faked);",
  '});',
);

/** A project of `files` with the repository's `packages` linked into its node_modules. */
function linked(files: Record<string, string>, packages: readonly string[]): string {
  const dir = project({ 'package.json': { name: 'fake-timers-fixture', version: '1.0.0', private: true }, ...files });
  for (const name of packages) {
    const as = join(dir, 'node_modules', name);
    mkdirSync(dirname(as), { recursive: true });
    // A junction on Windows, where a directory symlink needs a privilege; the type is ignored elsewhere.
    symlinkSync(join(REPO, 'node_modules', name), as, 'junction');
  }
  return dir;
}

/** Runs `args` in `dir` without and with the hook: both pass and see the same. Returns the hooked run. */
function sameAsPlain(dir: string, args: readonly string[]): HookedRun {
  const plain = runPlain(args, { cwd: dir });
  assert.equal(plain.code, 0, plain.stdout + plain.stderr);
  const expected = JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8')) as Record<string, { clock: string[] }>;
  for (const [label, { clock }] of Object.entries(expected))
    assert.equal(clock[0], 'moves', `${label}: without the hook`);
  const hooked = runHookedOk(args, { cwd: dir });
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'seen.json'), 'utf8')), expected);
  return hooked;
}

/** The Date.now calls recorded in all of a run's traces. */
function clockReads(run: HookedRun): number {
  return [...run.traces.values()].reduce((sum, trace) => sum + eventsOf(trace, 'Date.now').length, 0);
}

test('@sinonjs/fake-timers installed and uninstalled (Date, everything, a vm context): the program sees what it sees without the hook', () => {
  const hooked = sameAsPlain(linked({ 'app.js': SINON }, ['@sinonjs/fake-timers']), ['app.js']);
  assert.ok(clockReads(hooked) > 0, 'the real Date.now is recorded again once the fake is gone');
});

test("node:test's mock.timers reset and mock.method restored: the program sees what it sees without the hook", () => {
  const hooked = sameAsPlain(project({ 'app.js': NODE_TEST }), ['app.js']);
  assert.ok(clockReads(hooked) > 0, 'the real Date.now is recorded again once the fake is gone');
});

test("Jest's modern fake timers and spyOn, then the real ones: the test sees what it sees without the hook", () => {
  const dir = linked({ 'test/fake.test.js': JEST, 'jest.config.json': '{ "transform": {} }\n' }, ['jest']);
  sameAsPlain(dir, ['node_modules/jest/bin/jest.js']);
});

for (const pool of ['forks', 'threads']) {
  test(`Vitest's vi.useFakeTimers, setSystemTime and spyOn (${pool}), then the real ones: the test sees what it sees without the hook`, () => {
    const dir = linked({ 'test/fake.test.js': VITEST }, ['vitest']);
    sameAsPlain(dir, ['node_modules/vitest/vitest.mjs', 'run', `--pool=${pool}`]);
  });
}
