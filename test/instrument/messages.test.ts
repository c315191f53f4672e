/**
 * What a child hands its parent (instrument/messages.ts): a forked child's `process.send` and a
 * worker's `parentPort.postMessage` are recorded in the child's trace, and reading the message runs
 * none of the program's code: a getter, a proxy's trap, a `toJSON` run as often as without the hook.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertSameAsPlain, eventsOf, project } from '../helpers.js';

test("a forked child's process.send and a worker's postMessage are recorded, reading no getter, trap or toJSON twice", () => {
  const dir = project({
    'app.js': [
      "const { fork } = require('node:child_process');",
      "const { Worker } = require('node:worker_threads');",
      "const { join } = require('node:path');",
      "const child = fork(join(__dirname, 'child.js'));",
      "child.on('message', (message) => {",
      "  if (!('reads' in message)) return;",
      "  console.log('child read', message.reads);",
      '  child.disconnect();',
      "  const worker = new Worker(join(__dirname, 'worker.js'));",
      "  worker.on('message', (message) => console.log('worker', require('node:util').inspect(message, { breakLength: Infinity })));",
      '});',
    ].join('\n'),
    'child.js': [
      'let reads = 0;',
      'const message = {',
      '  get drawn() { reads++; return 0.5; },',
      "  list: [1, 'two', null, new Date(0)],",
      "  later: { toJSON() { reads++; return 'later'; } },",
      '  trapped: new Proxy({ a: 1 }, {',
      '    get(target, key) { reads++; return Reflect.get(target, key); },',
      '    ownKeys(target) { reads++; return Reflect.ownKeys(target); },',
      '  }),',
      '};',
      'process.send(message, () => process.send({ reads }));',
    ].join('\n'),
    'worker.js': [
      'let reads = 0;',
      "const { parentPort } = require('node:worker_threads');",
      "parentPort.postMessage({ get drawn() { reads++; return 0.5; }, list: [1, 'two', 3n, null, undefined, new Date(0), new Uint8Array(2)] });",
      'parentPort.postMessage({ reads });',
    ].join('\n'),
  });
  const run = assertSameAsPlain(['app.js'], { cwd: dir }, 0);
  assert.match(run.stdout, /^child read \d+\nworker \{ drawn: 0\.5, .*\nworker \{ reads: 1 \}\n$/s);
  assert.equal(eventsOf(run.traces.get('0.1')!, 'process.send').length, 2);
  assert.equal(eventsOf(run.traces.get('0.w1')!, 'parentPort.postMessage').length, 2);
  // Only what a child sends its parent: the parent sends nothing.
  assert.equal(eventsOf(run.traces.get('0')!, 'process.send').length, 0);
});
