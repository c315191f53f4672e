/**
 * Fixture projects that run TypeScript every way test/diffing/typescript.test.ts checks: tsx (its CLI and
 * `--import`), ts-node's CLI, Node's own type stripping, Jest with babel-jest and with ts-jest, and
 * Vitest. The program reads the clock and draws at known lines below types that a transform drops
 * (so a transformed line is not the written one), and writes what dep computes, as
 * test/runner-fixtures.ts's test does: with dep 1.1.0 the runs part. The loaders and runners are
 * the repository's pinned devDependencies, linked in as runner-fixtures.ts links them.
 */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { appWith, lines } from './cli-fixtures.js';
import { REPO } from './helpers.js';
import { DEP } from './runner-fixtures.js';

export interface Way {
  readonly label: string;
  /** the repository's packages (or scopes) linked into the fixture's node_modules */
  readonly links: readonly string[];
  /** the file the program's calls are in */
  readonly file: string;
  /** the command after `--` */
  readonly command: readonly string[];
  /** a test runner prints timings: its output is compared by what the test wrote, not byte for byte */
  readonly runner: boolean;
  readonly files?: Readonly<Record<string, string>>;
  /** why this Node cannot run it, when it cannot */
  readonly skip?: string;
}

const node = (...args: string[]) => [process.execPath, ...args];
const bin = (path: string, ...args: string[]) => node(`node_modules/${path}`, ...args);
const MAJOR = Number(process.versions.node.split('.')[0]);

// ts-node transpiles only (its type check costs seconds a run, and moves no line)
const TSCONFIG = JSON.stringify({
  compilerOptions: { module: 'commonjs', target: 'es2022', strict: true, esModuleInterop: true, types: ['node'] },
  'ts-node': { transpileOnly: true },
});
const BABEL = JSON.stringify({
  presets: ['@babel/preset-typescript'],
  plugins: ['@babel/plugin-transform-modules-commonjs'],
});

/** The calls, below an interface and a type alias that every transform drops. */
const BODY = [
  'interface Draws {',
  '  readonly draw: number;',
  '  readonly now: number;',
  '}',
  '',
  'type Id = string;',
  '',
  'export function simulation(): Draws {',
  '  const result: number = simulate(42);',
  "  writeFileSync('result.txt', `${result}\\n`);",
  '  const draw: number = Math.random();',
  '  const now: number = Date.now();',
  '  const id: Id = randomUUID();',
  '  return { draw, now: now + id.length * 0 };',
  '}',
];
const IMPORTS = [
  "import { writeFileSync } from 'node:fs';",
  "import { randomUUID } from 'node:crypto';",
  "import { simulate } from 'dep';",
];

/** The program's source for `way`: a script that runs the simulation, or a test that does. */
export function programSource(way: Way): string {
  if (way.label.startsWith('jest'))
    return lines(
      "import { test } from '@jest/globals';",
      ...IMPORTS,
      '',
      ...BODY,
      '',
      "test('a seeded simulation', () => {",
      '  simulation();',
      '});',
    );
  if (way.label.startsWith('vitest'))
    return lines(
      "import { test } from 'vitest';",
      ...IMPORTS,
      '',
      ...BODY,
      '',
      "test('a seeded simulation', () => {",
      '  simulation();',
      '});',
    );
  return lines(...IMPORTS, '', ...BODY, '', 'const { draw } = simulation();', "console.log(typeof draw, 'done');");
}

export const WAYS: readonly Way[] = [
  { label: 'tsx (CLI)', links: ['tsx'], file: 'sim.ts', command: bin('tsx/dist/cli.mjs', 'sim.ts'), runner: false },
  {
    label: 'tsx (--import)',
    links: ['tsx'],
    file: 'sim.ts',
    command: node('--import', 'tsx', 'sim.ts'),
    runner: false,
  },
  // an ES module: tsx's load hook hands Node the code, and the map is the one Node keeps
  {
    label: 'tsx (--import, an ES module)',
    links: ['tsx'],
    file: 'sim.mts',
    command: node('--import', 'tsx', 'sim.mts'),
    runner: false,
  },
  {
    label: 'ts-node (CLI)',
    links: ['ts-node', 'typescript', '@types'],
    file: 'sim.ts',
    command: bin('ts-node/dist/bin.js', 'sim.ts'),
    runner: false,
    files: { 'tsconfig.json': TSCONFIG },
  },
  {
    label: "Node's type stripping",
    links: [],
    file: 'sim.mts',
    command:
      MAJOR === 22
        ? node('--experimental-strip-types', '--no-warnings=ExperimentalWarning', 'sim.mts')
        : node('sim.mts'),
    runner: false,
    skip: MAJOR < 22 ? `Node ${process.versions.node} strips no types` : undefined,
  },
  {
    label: 'jest 30 (babel-jest)',
    links: ['jest', '@jest', '@babel'],
    file: 'test/sim.test.ts',
    command: bin('jest/bin/jest.js'),
    runner: true,
    files: { 'babel.config.json': BABEL },
  },
  {
    label: 'jest 30 (ts-jest)',
    links: ['jest', '@jest', 'ts-jest', 'typescript', '@types'],
    file: 'test/sim.test.ts',
    command: bin('jest/bin/jest.js'),
    runner: true,
    files: { 'tsconfig.json': TSCONFIG, 'jest.config.json': JSON.stringify({ transform: { '^.+\\.ts$': 'ts-jest' } }) },
  },
  {
    label: 'vitest 3',
    links: ['vitest'],
    file: 'test/sim.test.ts',
    command: bin('vitest/vitest.mjs', 'run'),
    runner: true,
  },
];

/** A project that runs `way`'s program with dep at `version`. */
export function typescriptProject(way: Way, version: keyof typeof DEP): string {
  const files = { 'index.js': DEP[version], 'index.d.ts': 'export declare function simulate(seed: number): number;\n' };
  const dir = appWith({ [way.file]: programSource(way), ...way.files }, { name: 'dep', version, files });
  for (const name of way.links)
    symlinkSync(join(REPO, 'node_modules', name), join(dir, 'node_modules', name), 'junction');
  return dir;
}
