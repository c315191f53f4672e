import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, project, runHooked, runHookedOk, runPlain, siteOf } from '../helpers.js';

test('every clock API is recorded with its value and call site', () => {
  const dir = project({
    'app.mjs': [
      "import { performance as perf } from 'node:perf_hooks';",
      'const seen = {};',
      'seen.now = Date.now();',
      'seen.construct = new Date().getTime();',
      'seen.call = Date();',
      'seen.perf = perf.now();',
      'seen.origin = performance.timeOrigin;',
      'seen.hrtime = process.hrtime();',
      'seen.bigint = String(process.hrtime.bigint());',
      'seen.uptime = process.uptime();',
      'new Date(0); new Date(2020, 1, 1); Date.UTC(2020, 1); Date.parse("2020-01-01");',
      'console.log(JSON.stringify(seen));',
    ].join('\n'),
  });
  const run = runHookedOk(['app.mjs'], { cwd: dir });
  assert.equal(run.stderr, '');
  const seen = JSON.parse(run.stdout);
  const trace = run.traces.get('0')!;
  const expect = [
    ['Date.now', seen.now, 3],
    ['new Date', seen.construct, 4],
    ['Date()', seen.call, 5],
    ['performance.now', seen.perf, 6],
    ['performance.timeOrigin', seen.origin, 7],
    ['process.hrtime', seen.hrtime, 8],
    ['process.hrtime.bigint', BigInt(seen.bigint), 9],
    ['process.uptime', seen.uptime, 10],
  ] as const;
  for (const [api, value, line] of expect) {
    const [event, ...more] = eventsOf(trace, api);
    assert.ok(event, `${api} recorded`);
    assert.equal(more.length, 0, `${api} recorded once: dated constructors and Date.UTC/parse are not clock reads`);
    assert.deepEqual(event.value, value, `${api} value`);
    assert.deepEqual(siteOf(trace, event), { ...siteOf(trace, event)!, file: 'app.mjs', line }, `${api} site`);
  }
  assert.equal(trace.ending.complete, true);
  assert.equal(trace.ending.exitCode, 0);
});

test('CommonJS callers and a dependency in node_modules are attributed to name@version', () => {
  const dir = project({
    'app.cjs': "const clock = require('clock-dep');\nconsole.log(clock.read() > 0);\n",
    'node_modules/clock-dep/package.json': { name: 'clock-dep', version: '1.2.3', main: 'lib/index.js' },
    'node_modules/clock-dep/lib/index.js': 'exports.read = function read() {\n  return Date.now();\n};\n',
  });
  const run = runHooked(['app.cjs'], { cwd: dir });
  assert.equal(run.stdout, 'true\n', run.stderr);
  const trace = run.traces.get('0')!;
  const [event] = eventsOf(trace, 'Date.now');
  const frames = trace.sites.get(event!.site)!.frames;
  assert.deepEqual(frames[0], {
    file: 'clock-dep@1.2.3/lib/index.js',
    line: 2,
    column: 15,
    fn: 'read',
    package: 'clock-dep@1.2.3',
  });
  assert.equal(frames[1]!.file, 'app.cjs');
  assert.equal(frames[1]!.package, null);
});

test('Date keeps its ECMAScript semantics under the hook', () => {
  const dir = project({
    'semantics.mjs': `
      const show = (label, value) => console.log(label, typeof value === 'string' ? value : JSON.stringify(value));
      const d = Object.getOwnPropertyDescriptor;
      show('typeof Date()', typeof Date());
      show('Date() is now-ish', Math.abs(Date.parse(Date()) - Date.now()) < 5000);
      show('instanceof', new Date() instanceof Date);
      show('constructor', Date.prototype.constructor === Date);
      show('name/length', [Date.name, Date.length, Date.now.name, Date.now.length]);
      show('descriptors', [d(globalThis, 'Date'), d(Date, 'prototype'), d(Date.prototype, 'constructor'), d(Date, 'now'), d(Math, 'random')].map((x) => x && { ...x, value: typeof x.value }));
      const realNow = Date.now;
      Date.now = () => 42;
      show('assigned Date.now', [Date.now(), new Date(Date.now()).getTime()]);
      Date.now = realNow;
      show('restored Date.now', Date.now === realNow, typeof Date.now());
      show('toString', [String(Date), String(Date.now), String(performance.now), String(process.hrtime), String(Function.prototype.toString)]);
      show('parse/UTC', [Date.parse('2001-02-03T04:05:06Z'), Date.UTC(2001, 1, 3)]);
      class Stamp extends Date { label() { return 'stamp:' + this.getUTCFullYear(); } }
      const s = new Stamp(0);
      show('subclass', [s instanceof Stamp, s instanceof Date, s.label(), Object.getPrototypeOf(Stamp) === Date, typeof new Stamp().getTime()]);
      function Legacy() { return Reflect.construct(Date, [86400000], new.target); }
      Object.setPrototypeOf(Legacy.prototype, Date.prototype);
      show('new.target', new Legacy().getTime());
      show('Date called with args', typeof Date(0));
      show('hrtime.bigint', typeof process.hrtime.bigint(), Object.keys(process.hrtime));
      show('hrtime diff', process.hrtime([0, 0]).length);
      try { new Date.now(); } catch (error) { show('new Date.now', error.constructor.name + ': ' + error.message); }
      // The hot sources are plain functions made to look like the natives (patch.ts imitate).
      const sources = [Math.random, Date.now, performance.now, process.hrtime, process.hrtime.bigint, process.uptime];
      show('own keys', sources.map((fn) => Reflect.ownKeys(fn).map(String)));
      show('own descriptors', sources.map((fn) => Object.getOwnPropertyDescriptors(fn)).map((all) => Object.values(all).map((x) => [x.writable, x.enumerable, x.configurable, typeof x.value])));
      show('prototypes', [process.hrtime.prototype === Object.getPrototypeOf(new process.hrtime()), 'prototype' in performance.now]);
      try { new Math.random(); } catch (error) { show('new Math.random', error.constructor.name + ': ' + error.message); }
      try { new performance.now(); } catch (error) { show('new performance.now', error.constructor.name + ': ' + error.message); }
      show('new hrtime.bigint', typeof new process.hrtime.bigint());
      try { performance.now.call({}); } catch (error) { show('now on non-performance', error.code); }
      try { Date.prototype.getTime.call({}); } catch (error) { show('getTime on non-date', error.message); }
    `,
  });
  const plain = runPlain(['semantics.mjs'], { cwd: dir });
  const hooked = runHooked(['semantics.mjs'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(hooked.stdout, plain.stdout);
  assert.equal(hooked.stderr, plain.stderr);
  assert.equal(hooked.code, plain.code);
});
