import { SafeMap, StringLastIndexOf, StringSlice } from '../../tracer/primordials.js';

/**
 * The packages whose code is a test runner's own work (its loop, its progress and timing reads),
 * not what a test asked for: fake timers and assertion libraries a test calls are not among them.
 */
const NAMES = [
  'vitest',
  '@vitest/runner',
  '@vitest/utils',
  '@vitest/snapshot',
  'tinypool',
  'jest-circus',
  'jest-runner',
  'jest-runtime',
  'jest-jasmine2',
  '@jest/core',
  '@jest/reporters',
  '@jest/test-result',
  'mocha',
];
const RUNNER_PACKAGES = new SafeMap<string, true>();
for (let i = 0; i < NAMES.length; i++) RUNNER_PACKAGES.set(NAMES[i]!, true);

/** Whether `id` (`name@version`, as frames name a package) is a test runner's own. */
export function isRunnerPackage(id: string): boolean {
  const at = StringLastIndexOf(id, '@');
  return RUNNER_PACKAGES.has(at > 0 ? StringSlice(id, 0, at) : id);
}
