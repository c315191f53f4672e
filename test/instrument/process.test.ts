import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { eventsOf, project, REGISTER, REPO, runHooked, runHookedOk, runPlain, siteOf } from '../helpers.js';

test('os.hostname, os.cpus and os.tmpdir are recorded with their values and call sites; process.pid reads are not', () => {
  const dir = project({
    'app.mjs': [
      "import os, { hostname, cpus, tmpdir } from 'node:os';",
      "import { createRequire } from 'node:module';",
      "const cjsOs = createRequire(import.meta.url)('os');",
      'const seen = { host: hostname(), cpus: cpus().length, tmp: tmpdir(), pid: process.pid };',
      'seen.same = [os.hostname(), cjsOs.tmpdir(), `${os.hostname}`].join("|");',
      'console.log(JSON.stringify(seen));',
    ].join('\n'),
  });
  const run = runHookedOk(['app.mjs'], { cwd: dir });
  assert.equal(run.stderr, '');
  const seen = JSON.parse(run.stdout);
  assert.equal(seen.same, [seen.host, seen.tmp, seen.host].join('|'), 'the program gets the real values');
  const trace = run.traces.get('0')!;
  const expect = [
    [
      'os.hostname',
      [
        [seen.host, 4],
        [seen.host, 5],
        [seen.host, 5],
      ],
    ],
    ['os.cpus', [[seen.cpus, 4]]],
    [
      'os.tmpdir',
      [
        [seen.tmp, 4],
        [seen.tmp, 5],
      ],
    ],
    ['process.pid', []],
  ] as const;
  for (const [api, calls] of expect) {
    const events = eventsOf(trace, api);
    assert.deepEqual(
      events.map((event) => [event.value, siteOf(trace, event)?.line]),
      calls,
      `${api}: values and lines (named and default ESM imports, require, String(os.hostname))`,
    );
    for (const event of events) assert.equal(siteOf(trace, event)?.file, 'app.mjs');
  }
  assert.equal(eventsOf(trace, 'os.cpus')[0]!.tag, 2, 'os.cpus is stored as a count (Tag.uint)');
});

test('the program sees the same os functions and process object with and without the hook', () => {
  const dir = project({
    // CommonJS, so the assignment to process.pid runs in sloppy mode, where both forms ignore it
    'same.cjs': `
      const os = require('node:os');
      const util = require('node:util');
      const show = (label, value) => console.log(label, JSON.stringify(value));
      for (const name of ['hostname', 'cpus', 'tmpdir']) {
        const fn = os[name];
        show(name, [fn.name, fn.length, String(fn).slice(0, 30), Reflect.ownKeys(fn).map(String), typeof fn[Symbol.toPrimitive]]);
      }
      show('toString', [Function.prototype.toString.call(os.cpus).slice(0, 40), String(os.tmpdir)]);
      const cpus = os.cpus();
      show('cpus', [Array.isArray(cpus), cpus.length, cpus.map((cpu) => [cpu.model, Object.keys(cpu.times)])]);
      show('pid', [typeof process.pid, Number.isInteger(process.pid), process.pid === process.pid, 'pid' in process]);
      show('keys', [Object.keys(process).includes('pid'), Object.keys(process).indexOf('pid') >= 0, { ...process }.pid === process.pid]);
      const descriptor = Object.getOwnPropertyDescriptor(process, 'pid');
      show('enumerable/configurable', [descriptor.enumerable, descriptor.configurable]);
      const before = process.pid;
      process.pid = 1;
      show('sloppy assignment ignored', process.pid === before);
      show('inspect has pid', util.inspect(process).includes('pid:'));
      show('os keys', Object.keys(os));
    `,
  });
  const plain = runPlain(['same.cjs'], { cwd: dir });
  const hooked = runHooked(['same.cjs'], { cwd: dir });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(hooked.stdout, plain.stdout);
  assert.equal(hooked.stderr, plain.stderr);
  assert.equal(hooked.code, plain.code);
});

test('process.pid stays the data property Node makes: its descriptor, inspect and the strict-mode error are as without the hook', () => {
  const dir = project({
    'shape.mjs': `
      import util from 'node:util';
      const { value, ...rest } = Object.getOwnPropertyDescriptor(process, 'pid');
      console.log(JSON.stringify({ ...rest, value: typeof value }), value === process.pid);
      console.log(/pid: \\[Getter\\]/.test(util.inspect(process)));
      try { (() => { 'use strict'; process.pid = 1; })(); } catch (error) { console.log(error.constructor.name, error.message); }
    `,
  });
  const plain = runPlain(['shape.mjs'], { cwd: dir });
  const hooked = runHooked(['shape.mjs'], { cwd: dir });
  assert.match(
    plain.stdout,
    /^\{"writable":false,"enumerable":true,"configurable":true,"value":"number"\} true\nfalse\nTypeError /,
  );
  assert.equal(hooked.stdout, plain.stdout);
});

test('the handle puts back the very properties it replaced, and a second install is refused', () => {
  const processModule = pathToFileURL(join(REPO, 'dist', 'instrument', 'process.js')).href;
  const dir = project({
    'undo.mjs': `
      import os, { hostname } from 'node:os';
      import { install } from ${JSON.stringify(processModule)};
      const ask = {};
      (await import('node:diagnostics_channel')).channel('detdrift.runtime').publish(ask);
      const runtime = ask.runtime;
      // tsc's process.js, a module apart from the hook's bundle: its first install layers over the
      // hook's wrappers, its second is refused, and its handle takes exactly its own layer off again.
      // It is imported before the hook, as the hook's own code is, so it saved the real built-ins.
      const hooked = os.hostname;
      const layer = install(runtime.recorder);
      try { install(runtime.recorder); } catch (error) { console.log(error.code); }
      layer.uninstall();
      console.log(os.hostname === hooked, hostname === hooked);
      const wrapped = [os.hostname, hostname];
      runtime.stop();
      const descriptor = Object.getOwnPropertyDescriptor(process, 'pid');
      console.log(typeof descriptor.value, descriptor.writable, descriptor.get);
      console.log(os.hostname !== wrapped[0], hostname === os.hostname, wrapped[1] === wrapped[0]);
      // after stop, late events would still land in the trace: none may come from a leftover wrapper
      [os.hostname(), String(os.hostname), String(os.tmpdir), os.tmpdir(), os.cpus(), process.pid];
    `,
  });
  const run = runHooked(['undo.mjs'], {
    cwd: dir,
    env: { NODE_OPTIONS: `--import="${processModule}" --import="${REGISTER}"` },
  });
  assert.equal(run.stderr, '');
  assert.equal(run.stdout, 'ERR_DETDRIFT_INSTALLED\ntrue true\nnumber false undefined\ntrue true true\n');
  assert.deepEqual(
    run.traces.get('0')!.events.filter((event) => event.family === 'process'),
    [],
  );
});
