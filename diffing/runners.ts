import type { SiteDef } from '../tracer/format.js';
import { packageName } from './keys.js';
import type { LoadedTrace } from './load.js';

/** The test runners and TypeScript loaders whose own calls and outputs a comparison can leave out. */
export const RUNNER_NAMES = ['jest', 'vitest', 'mocha', 'node:test', 'tsx', 'ts-node'] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

/**
 * Which runners' own work to leave out: `auto` those the traces show at work (the default), `off`
 * none (the runner's timings, caches and ids are compared like the program's), or a list of names.
 */
export type RunnerSetting = 'auto' | 'off' | readonly RunnerName[];

export interface RunnerProfile {
  readonly name: RunnerName;
  /** packages whose frames mean the runner ran the traced process: only a test run loads them */
  readonly markers: readonly string[];
  /** packages whose frames make a call the runner's when no project frame is on the stack; `x-*` is a prefix */
  readonly packages: readonly string[];
  /**
   * packages that transform code as the program loads it (below the program's frames, which
   * required the module): their calls are the runner's too
   */
  readonly transforms: readonly string[];
  /** Node's own code is the runner: a stack of Node's internals alone (no frame kept) is its */
  readonly internal: boolean;
  /**
   * what it keeps on disk between runs that a first run fills and a second reads (a cold first run
   * can run the program in another order): null when nothing
   */
  readonly cache: string | null;
}

/**
 * A runner's own work has a frame of the runner nearer the call than any frame of the project:
 * the test's calls always run below a frame of the test file, the runner's (its clocks, id draws,
 * cache and report writes, and the transforms of the modules the test requires) do not. Markers are narrower
 * than packages where a package is
 * also used outside tests (jest-worker, vite), so a build script that uses vite is not a vitest run.
 */
const RUNNERS: readonly RunnerProfile[] = Object.freeze([
  {
    name: 'jest',
    markers: ['jest-cli', '@jest/core', 'jest-runner', 'jest-circus', 'jest-runtime'],
    packages: ['jest', 'jest-*', '@jest/*', 'babel-jest', 'babel-preset-jest', 'babel-plugin-jest-hoist'],
    // babel-jest's Babel (its config files' stat times) and ts-jest's TypeScript (its caches)
    transforms: ['babel-jest', '@babel/*', 'gensync', 'ts-jest', 'typescript'],
    internal: false,
    cache: 'haste map, transform cache and test durations (file order, in band or not)',
  },
  {
    name: 'vitest',
    markers: ['vitest', '@vitest/runner'],
    packages: ['vitest', '@vitest/*', 'vite', 'vite-node', 'tinypool'],
    transforms: [],
    internal: false,
    cache: 'results cache (test durations: file order) and dependency optimizer',
  },
  { name: 'mocha', markers: ['mocha'], packages: ['mocha'], transforms: [], internal: false, cache: null },
  // node --test starts each file in a child the hook names `<parent>.@<file>` (instrument/lineage.ts).
  { name: 'node:test', markers: [], packages: [], transforms: [], internal: true, cache: null },
  // The TypeScript loaders: their transform caches (file times, a first run that compiles and a
  // second that reads what the first wrote) are their own.
  {
    name: 'tsx',
    markers: ['tsx'],
    packages: ['tsx', 'esbuild'],
    transforms: ['tsx', 'esbuild', 'get-tsconfig'],
    internal: false,
    cache: 'transform cache',
  },
  {
    name: 'ts-node',
    markers: ['ts-node'],
    packages: ['ts-node', 'typescript'],
    transforms: ['ts-node', 'typescript', 'v8-compile-cache-lib', '@cspotcode/*'],
    internal: false,
    cache: 'compile cache',
  },
]);

/** What a trace shows of the runner that ran it: its process's name, and its stacks. */
type RunnerEvidence = Pick<LoadedTrace, 'header' | 'sites'>;

/** The profiles a setting selects, given the traces compared (every process of both runs). */
export function activeRunners(
  setting: RunnerSetting | undefined,
  traces: readonly RunnerEvidence[],
): readonly RunnerProfile[] {
  if (setting === 'off') return [];
  if (setting !== undefined && setting !== 'auto') return RUNNERS.filter((profile) => setting.includes(profile.name));
  return RUNNERS.filter((profile) => traces.some((trace) => shows(profile, trace)));
}

/** The runners and loaders of RUNNER_NAMES that keep a cache between runs (RunnerProfile.cache). */
export const CACHING_RUNNERS: readonly RunnerName[] = RUNNERS.filter((profile) => profile.cache).map(
  (profile) => profile.name,
);

/** Whether the trace shows one of `profiles` at work in its process: the process is the runner's. */
export function runnersProcess(trace: RunnerEvidence, profiles: readonly RunnerProfile[]): boolean {
  return profiles.some((profile) => shows(profile, trace));
}

function shows(profile: RunnerProfile, trace: RunnerEvidence): boolean {
  if (profile.internal) return trace.header.lineage.includes('.@');
  const markers = new Set(profile.markers);
  for (const site of trace.sites.values()) {
    if (site.frames.some((frame) => markers.has(packageName(frame) ?? ''))) return true;
  }
  return false;
}

/**
 * Whether a call or output with this stack is the runner's own: a frame of an active runner's
 * packages is nearer the call than any frame of the project (the runner called it, or a package it
 * uses on its behalf did; a test's calls run below a frame of the test file), or, for node --test,
 * no frame but Node's. A call whose stack was not taken cannot be told apart (undefined): it stays
 * the program's.
 */
export function isRunners(site: SiteDef | undefined, profiles: readonly RunnerProfile[]): boolean {
  if (site === undefined || profiles.length === 0) return false;
  if (site.frames.length === 0) return site.skipped > 0 && profiles.some((profile) => profile.internal);
  for (const frame of site.frames) {
    const name = packageName(frame);
    if (name === null) return false;
    if (profiles.some((profile) => ownedBy(profile.packages, name) || ownedBy(profile.transforms, name))) return true;
  }
  return false;
}

function ownedBy(packages: readonly string[], name: string): boolean {
  return packages.some((pattern) => (pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : name === pattern));
}
