import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runnersInCommand } from '../../cli/shared/command-runners.js';
import { project, tempDir } from '../helpers.js';

test('a command names a caching runner by its bin, its package path or a loader module', () => {
  const cwd = tempDir();
  const named = (...command: string[]) => runnersInCommand(command, cwd);
  assert.deepEqual(named('npx', 'jest', 'test/sim.test.js'), ['jest']);
  assert.deepEqual(named('/usr/bin/node', 'node_modules/vitest/vitest.mjs', 'run'), ['vitest']);
  assert.deepEqual(named('node_modules\\.bin\\jest.cmd'), ['jest']);
  assert.deepEqual(named('node', '--import', 'tsx', 'sim.ts'), ['tsx']);
  assert.deepEqual(named('node', '--require=ts-node/register', 'sim.ts'), ['ts-node']);
  assert.deepEqual(named('npx', 'ts-node-esm', 'sim.ts'), ['ts-node']);
  // mocha and node --test keep no cache; a project's own file named like a runner is no runner
  assert.deepEqual(named('npx', 'mocha'), []);
  assert.deepEqual(named('node', '--test'), []);
  assert.deepEqual(named('node', './jest.js', 'test/tsx.test.js'), []);
});

test("a package script names one: npm test, npm run, yarn and pnpm, a script's script", () => {
  const cwd = project({
    'package.json': {
      scripts: {
        test: 'npm run unit -- --ci',
        unit: 'cross-env CI=1 vitest run',
        e2e: 'tsc && node --import tsx e2e.ts',
      },
    },
  });
  const named = (...command: string[]) => runnersInCommand(command, cwd);
  assert.deepEqual(named('npm', 'test'), ['vitest']);
  assert.deepEqual(named('npm', 't'), ['vitest']);
  assert.deepEqual(named('pnpm', 'run', 'e2e'), ['tsx']);
  assert.deepEqual(named('yarn', 'e2e'), ['tsx']);
  assert.deepEqual(named('npm', 'run', 'missing'), []);
});
