/**
 * The two seeded harnesses the eval runs, and the dependency upgrades from their own history.
 *
 * Each upgrade holds the harness at the version that made the move (its published tests and code),
 * and installs the moved dependency at base and at head: the versions its package.json named before
 * and after. The other packages its tests need are installed as that version's package.json names
 * them. Why these harnesses, and where each version comes from: eval/README.md.
 */

/** One dependency move in a harness's history. */
export interface Upgrade {
  /** a short name, unique within the harness, used for the cache folder, the ground truth and the table */
  readonly id: string;
  /** the harness's version whose package.json made the move */
  readonly harnessVersion: string;
  readonly dependency: string;
  /** exact versions: what the previous release's range resolved to, and what this release's resolved to */
  readonly base: string;
  readonly head: string;
  /**
   * `override`: the dependency is one of the harness's own dependencies, moved with npm's overrides;
   * `direct`: a package its tests need (its test runner), installed beside it.
   */
  readonly via: 'override' | 'direct';
  /** the other packages its tests need, with the ranges that version's package.json gave them */
  readonly testDeps: Readonly<Record<string, string>>;
}

export interface Harness {
  readonly name: string;
  /** the registry package the harness is published in */
  readonly package: string;
  /** its seeded test file, relative to the package, run with `node` from the install's root */
  readonly testFile: string;
  /** the seeds detdrift is given (the harness seeds its own generators in code) */
  readonly seeds: readonly number[];
  readonly upgrades: readonly Upgrade[];
}

const FORCELAYOUT_TESTS_0_0_16 = { tap: '~0.4.4', 'ngraph.graph': '~0.0.3', 'ngraph.generators': '0.0.2' };
const FORCELAYOUT_TESTS_0_0_21 = { tap: '~0.4.4', 'ngraph.graph': '~0.0.11', 'ngraph.generators': '0.0.15' };
const FORCELAYOUT_TESTS_0_0_22 = { tap: '2.3.4', 'ngraph.graph': '~0.0.11', 'ngraph.generators': '0.0.15' };

/** A force-directed layout: a physics simulation seeded with ngraph.random(42), tests under tap. */
const forcelayout: Harness = {
  name: 'ngraph.forcelayout',
  package: 'ngraph.forcelayout',
  testFile: 'test/layout.js',
  seeds: [42],
  upgrades: [
    {
      id: 'simulator-0.0.9-0.0.10',
      harnessVersion: '0.0.16',
      dependency: 'ngraph.physics.simulator',
      base: '0.0.9',
      head: '0.0.10',
      via: 'override',
      testDeps: FORCELAYOUT_TESTS_0_0_16,
    },
    {
      id: 'simulator-0.0.10-0.0.11',
      harnessVersion: '0.0.21',
      dependency: 'ngraph.physics.simulator',
      base: '0.0.10',
      head: '0.0.11',
      via: 'override',
      testDeps: FORCELAYOUT_TESTS_0_0_21,
    },
    {
      id: 'simulator-0.0.11-0.0.12',
      harnessVersion: '0.0.22',
      dependency: 'ngraph.physics.simulator',
      base: '0.0.11',
      head: '0.0.12',
      via: 'override',
      testDeps: FORCELAYOUT_TESTS_0_0_22,
    },
    {
      id: 'tap-0.4.13-2.3.4',
      harnessVersion: '0.0.22',
      dependency: 'tap',
      base: '0.4.13',
      head: '2.3.4',
      via: 'direct',
      testDeps: { 'ngraph.graph': '~0.0.11', 'ngraph.generators': '0.0.15' },
    },
    {
      id: 'simulator-0.0.12-0.1.1',
      harnessVersion: '0.1.2',
      dependency: 'ngraph.physics.simulator',
      base: '0.0.12',
      head: '0.1.1',
      via: 'override',
      testDeps: FORCELAYOUT_TESTS_0_0_22,
    },
    {
      id: 'simulator-0.1.1-0.3.0',
      harnessVersion: '0.5.0',
      dependency: 'ngraph.physics.simulator',
      base: '0.1.1',
      head: '0.3.0',
      via: 'override',
      testDeps: FORCELAYOUT_TESTS_0_0_22,
    },
  ],
};

const GENERATORS_TESTS_TAP_0_4 = { tap: '~0.4.4' };

/** Graph generators, the random ones (Watts-Strogatz, ...) seeded with ngraph.random(seed || 42), tests under tap. */
const generators: Harness = {
  name: 'ngraph.generators',
  package: 'ngraph.generators',
  testFile: 'test/create.js',
  seeds: [42],
  upgrades: [
    {
      id: 'graph-0.0.10-0.0.11',
      harnessVersion: '0.0.15',
      dependency: 'ngraph.graph',
      base: '0.0.10',
      head: '0.0.11',
      via: 'override',
      testDeps: GENERATORS_TESTS_TAP_0_4,
    },
    {
      id: 'graph-0.0.11-0.0.12',
      harnessVersion: '0.0.16',
      dependency: 'ngraph.graph',
      base: '0.0.11',
      head: '0.0.12',
      via: 'override',
      testDeps: GENERATORS_TESTS_TAP_0_4,
    },
    {
      id: 'graph-0.0.12-0.0.14',
      harnessVersion: '0.0.18',
      dependency: 'ngraph.graph',
      base: '0.0.12',
      head: '0.0.14',
      via: 'override',
      testDeps: GENERATORS_TESTS_TAP_0_4,
    },
    {
      id: 'random-0.0.1-0.1.0',
      harnessVersion: '0.0.19',
      dependency: 'ngraph.random',
      base: '0.0.1',
      head: '0.1.0',
      via: 'override',
      testDeps: GENERATORS_TESTS_TAP_0_4,
    },
    {
      id: 'tap-0.4.13-14.x',
      harnessVersion: '18.0.1',
      dependency: 'tap',
      base: '0.4.13',
      head: '14.11.0',
      via: 'direct',
      testDeps: {},
    },
    {
      id: 'graph-0.0.14-18.0.0',
      harnessVersion: '18.0.1',
      dependency: 'ngraph.graph',
      base: '0.0.14',
      head: '18.0.0',
      via: 'override',
      testDeps: { tap: '^14.1.1' },
    },
  ],
};

export const HARNESSES: readonly Harness[] = [forcelayout, generators];
