import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventsOf, project, REGISTER, runHooked, runPlain } from '../helpers.js';

/**
 * A preload loaded before the hook that gives `process` its own `emit` and `listeners`, as
 * Vitest's vm pools do (their workers `--require` a file that filters warnings out of
 * `process.emit`) and as tsx does: the hook wraps those in place of Node's, and the preload's
 * still run.
 */
const PRELOAD = `
const emit = process.emit;
process.emit = function (event, warning) {
  if (event === 'warning' && warning && warning.name === 'ExperimentalWarning') return false;
  return emit.apply(this, arguments);
};
const listeners = process.listeners;
process.listeners = function (event) { return listeners.call(this, event); };
`;

const APP = `
process.emitWarning('filtered by the preload', 'ExperimentalWarning');
console.log(Math.random() < 1, process.listeners('exit').length, process.listenerCount('SIGTERM'));
process.exitCode = 3;
`;

test("a preload's own process.emit and process.listeners are wrapped in place, and recording goes on", () => {
  const dir = project({ 'preload.cjs': PRELOAD, 'app.mjs': APP });
  const preload = '--require=./preload.cjs';
  const plain = runPlain(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: preload } });
  const hooked = runHooked(['app.mjs'], { cwd: dir, env: { NODE_OPTIONS: `${preload} --import="${REGISTER}"` } });
  // Node 20 and 22 keep an \`exit\` listener of their ESM loader's for a module entry point; 24 does not.
  assert.deepEqual([plain.code, plain.stderr], [3, '']);
  assert.match(plain.stdout, /^true [01] 0\n$/);
  assert.deepEqual([hooked.code, hooked.stdout, hooked.stderr], [plain.code, plain.stdout, plain.stderr]);
  const trace = hooked.traces.get('0')!;
  assert.equal(eventsOf(trace, 'Math.random').length, 1);
  assert.deepEqual([trace.ending.complete, trace.ending.exitCode], [true, 3]);
});
