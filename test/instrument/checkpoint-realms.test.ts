/**
 * `checkpoint()` reaches the hook from a test file a runner evaluates in a `vm` context (Vitest's
 * vmThreads pool): the hook answers on a diagnostics channel, the thread's in every realm
 * (instrument/channel.ts), where a property of the main realm's global was out of the context's reach.
 */
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { detdrift } from '../cli-fixtures.js';
import { eventsOf, project, readTraces, REPO } from '../helpers.js';

test('a checkpoint in a test file that Vitest runs in a vm context is recorded', () => {
  const index = JSON.stringify(join(REPO, 'dist', 'index.js'));
  const dir = project({
    'package.json': { name: 'app', version: '1.0.0', type: 'module' },
    'test/app.test.js': `import { test } from 'vitest';\nimport { checkpoint } from ${index};\ntest('t', () => checkpoint('inside', { n: 1 }));\n`,
  });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'vitest'), join(dir, 'node_modules', 'vitest'), 'junction');
  const run = detdrift(
    ['record', '--out', 'trace', '--', process.execPath, 'node_modules/vitest/vitest.mjs', 'run', '--pool=vmThreads'],
    dir,
  );
  assert.equal(run.code, 0, run.stderr);
  const heads = [...readTraces(join(dir, 'trace')).values()].flatMap((trace) =>
    eventsOf(trace, 'checkpoint').map((event) => (event.value as { head: string }).head),
  );
  assert.deepEqual(heads, ['inside']);
});

test('a checkpoint in a CommonJS test file that Jest runs requires detdrift through its own module registry, and is recorded', () => {
  const dir = project({
    'package.json': { name: 'app', version: '1.0.0' },
    'jest.config.json': '{ "transform": {} }\n',
    'test/app.test.js':
      "const { checkpoint } = require('detdrift');\ntest('t', () => checkpoint('inside', { n: 1 }));\n",
  });
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(join(REPO, 'node_modules', 'jest'), join(dir, 'node_modules', 'jest'), 'junction');
  symlinkSync(REPO, join(dir, 'node_modules', 'detdrift'), 'junction');
  const run = detdrift(['record', '--out', 'trace', '--', process.execPath, 'node_modules/jest/bin/jest.js'], dir);
  assert.equal(run.code, 0, run.stderr);
  const heads = [...readTraces(join(dir, 'trace')).values()].flatMap((trace) =>
    eventsOf(trace, 'checkpoint').map((event) => (event.value as { head: string }).head),
  );
  assert.deepEqual(heads, ['inside']);
});
