/**
 * Fake timers at seeded random (issue #22): a program installs, moves and removes @sinonjs/fake-timers
 * clocks and node:test's mock timers, mocks and assigns `Date.now`, `Math.random` and
 * `performance.now` and puts them back, in a random order (undoing out of order too), printing
 * after each step what it can see: which clock it reads, what it gets, the identity and the
 * descriptors of the built-ins. At the end it undoes what is left and checks that the clock moves.
 * Without the hook and with it (observe or control mode), it must print the same.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { project, REPO, runHooked, runPlain } from '../helpers.js';
import { caseCount, caseName, seeded, type Random } from './seeded.js';

const CASES = caseCount(3, 200);

/** What the program can see, printed after every step; a clock that reads below 10^12 is a fake one. */
const PRELUDE = `
const FakeTimers = require('@sinonjs/fake-timers');
const { mock } = require('node:test');
const vm = require('node:vm');
const real = { Date, now: Date.now, random: Math.random, perfNow: performance.now, setTimeout, hrtime: process.hrtime };
const clocks = [];
const undo = [];
const safely = (read) => { try { return read(); } catch (error) { return 'threw ' + error.constructor.name; } };
const kind = (object, key) => safely(() => Object.keys(Object.getOwnPropertyDescriptor(object, key) ?? { none: 0 }).join('/'));
const shown = (value) => (typeof value === 'number' && value < 1e12 ? value : typeof value);
const look = (step) => console.log(step, JSON.stringify([
  safely(() => shown(Date.now())), safely(() => shown(new Date().getTime())), safely(() => ([0.25, 0.5].includes(Math.random()) ? 'stub' : 'draw')),
  safely(() => typeof performance.now()),
  [Date === real.Date, Date.now === real.now, Math.random === real.random, performance.now === real.perfNow, setTimeout === real.setTimeout, process.hrtime === real.hrtime],
  [kind(Date, 'now'), kind(Math, 'random'), kind(globalThis, 'Date'), kind(globalThis, 'setTimeout'), kind(Object.getPrototypeOf(performance), 'now')],
]));
const step = (name, run) => { try { run(); } catch (error) { console.log(name, 'threw', error.constructor.name, error.code ?? ''); } look(name); };
const spin = (read) => { const t0 = read(); for (let n = 0; read() - t0 < 20; n++) if (n > 1e7) return 'stuck'; return 'moves'; };
`;

const END = `
step('end', () => {
  while (clocks.length > 0) clocks.pop().uninstall();
  mock.timers.reset();
  mock.restoreAll();
  while (undo.length > 0) undo.pop()();
});
console.log('clock', Date.now() < 1e12 ? 'fake' : spin(() => Date.now()), new Date().getTime() < 1e12 ? 'fake' : spin(() => new Date().getTime()));
`;

const SINON_FAKES = ['Date', 'setTimeout', 'setInterval', 'setImmediate', 'performance', 'hrtime'];
const MOCK_APIS = ['Date', 'setTimeout', 'setInterval', 'setImmediate'];
const TARGETS = [
  ['Date', 'now'],
  ['Math', 'random'],
  ['performance', 'now'],
] as const;

function subset(random: Random, items: readonly string[]): string {
  const chosen = items.filter(() => random() < 0.5);
  return JSON.stringify(chosen.length > 0 ? chosen : [items[0]]);
}

/** One step of the program: a name and the code it runs. */
function anyStep(random: Random): [string, string] {
  const [holder, key] = random.pick(TARGETS);
  const stub = random.pick([0.25, 0.5, 1000, 2000]);
  const steps: Array<() => [string, string]> = [
    () => [
      'sinon install',
      `clocks.push(FakeTimers.install({ toFake: ${subset(random, SINON_FAKES)}, now: ${random.int(1e6)} }))`,
    ],
    () => ['sinon tick', `clocks.at(-1)?.tick(${random.int(100)})`],
    () => ['sinon uninstall', 'clocks.pop()?.uninstall()'],
    () => [
      'sinon in a vm context',
      `const c = FakeTimers.withGlobal(vm.runInNewContext('this')).install({ toFake: ['Date'] }); c.tick(5); c.uninstall()`,
    ],
    () => ['mock.timers enable', `mock.timers.enable({ apis: ${subset(random, MOCK_APIS)}, now: ${random.int(1e6)} })`],
    () => ['mock.timers tick', `mock.timers.tick(${random.int(100)})`],
    () => ['mock.timers reset', 'mock.timers.reset()'],
    () => [`mock.method ${holder}.${key}`, `mock.method(${holder}, '${key}', () => ${stub})`],
    () => ['mock.restoreAll', 'mock.restoreAll()'],
    () => [
      `assign ${holder}.${key}`,
      `const saved = ${holder}.${key}; ${holder}.${key} = () => ${stub}; undo.push(() => { ${holder}.${key} = saved; })`,
    ],
    () => [
      `define ${holder}.${key}`,
      `const d = Object.getOwnPropertyDescriptor(${holder}, '${key}'); Object.defineProperty(${holder}, '${key}', { value: () => ${stub} }); undo.push(() => (d ? Object.defineProperty(${holder}, '${key}', d) : delete ${holder}.${key}))`,
    ],
    () => ['put one back', 'undo.pop()?.()'],
    () => [
      'a subclass assigns now',
      `class D extends Date {} D.now = () => ${stub}; console.log(D.now(), Date.now() === ${stub})`,
    ],
    () => [
      'an heir assigns random',
      `const m = Object.create(Math); m.random = () => ${stub}; console.log(m.random(), Math.random() === ${stub})`,
    ],
  ];
  return random.pick(steps)();
}

function program(random: Random): string {
  const lines = [PRELUDE];
  for (let i = 0, n = 3 + random.int(8); i < n; i++) {
    const [name, code] = anyStep(random);
    lines.push(`step(${JSON.stringify(`${i} ${name}`)}, () => { ${code}; });`);
  }
  return lines.join('\n') + END;
}

test(`${CASES} seeded sequences of fake timers, mocks and assignments: the program prints what it prints without the hook`, () => {
  const random = seeded(28);
  for (let index = 0; index < CASES; index++) {
    const dir = project({ 'app.js': program(random) });
    mkdirSync(join(dir, 'node_modules', '@sinonjs'), { recursive: true });
    symlinkSync(
      join(REPO, 'node_modules', '@sinonjs', 'fake-timers'),
      join(dir, 'node_modules', '@sinonjs', 'fake-timers'),
      'junction',
    );
    const mode = random.pick(['observe', 'control']);
    const args = ['--no-warnings', 'app.js'];
    const plain = runPlain(args, { cwd: dir });
    const hooked = runHooked(args, { cwd: dir, env: { DETDRIFT_MODE: mode, DETDRIFT_SEED: String(index) } });
    const name = `${caseName('fake timers', index)} in ${mode} mode, program in ${dir}`;
    assert.equal(plain.code, 0, `${name}: without the hook: ${plain.stderr}`);
    assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr], name);
  }
});
