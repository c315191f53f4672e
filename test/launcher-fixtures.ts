/**
 * Package managers as users type them (`npm test`, `npx tool`, `pnpm test`, `yarn test`), for the
 * launcher tests (instrument/launcher.ts): npm and npx as they come with the node running the
 * tests, pnpm and yarn the repository's pinned devDependencies, linked onto PATH under their names.
 * The fixture project's only dependency is written into node_modules by hand and every launcher
 * runs offline: nothing is installed or fetched.
 */
import { chmodSync, existsSync, mkdirSync, realpathSync, symlinkSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { lines } from './cli-fixtures.js';
import { project, REPO, tempDir } from './helpers.js';

/**
 * npm's own script: the one beside the node running the tests (Unix installs, then Windows'), else
 * the one the `npm` on PATH links to (a node from a tarball without npm, say), or null.
 */
export const NPM_CLI =
  [
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    join(dirname(process.execPath), 'node_modules', 'npm', 'bin', 'npm-cli.js'),
    ...(process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'npm')),
  ]
    .filter((file) => existsSync(file))
    .map((file) => realpathSync(file))
    .find((file) => basename(file) === 'npm-cli.js') ?? null;

/** The pinned launchers' scripts, by the name they are typed as. */
export const PINNED = {
  pnpm: join(REPO, 'node_modules', 'pnpm', 'bin', 'pnpm.cjs'),
  yarn: join(REPO, 'node_modules', 'yarn', 'bin', 'yarn.js'),
};

/** The program: deterministic, though it reads the clock and writes a file. */
export const SIM = lines(
  "const { writeFileSync } = require('node:fs');",
  'let x = 42;',
  'for (let i = 0; i < 10; i++) x = (Math.imul(x, 1103515245) + 12345) >>> 0;',
  'const started = Date.now();',
  "writeFileSync('result.txt', `${x}\\n`);",
  "console.log(typeof started, 'result', x);",
);
/** A program that is not: it draws. */
export const DRAW = lines('const draw = Math.random();', "console.log('drew', draw);");

/**
 * The fixture project: `node sim.js`, deterministic, behind every kind of script a launcher runs
 * (with pre and post scripts, through a shell, under `node --test`, from a program that runs
 * `npm run` itself, as a dependency's bin for npx), and `node draw.js`, which draws.
 */
export function launchedProject(): string {
  const dir = project({
    'package.json': {
      name: 'fixture-app',
      version: '1.0.0',
      private: true,
      scripts: {
        test: 'node sim.js',
        prestaged: 'node sim.js pre',
        staged: 'node sim.js',
        poststaged: 'node sim.js post',
        shell: 'sh ./sim.sh',
        'node-test': 'node --test',
        spawns: 'node spawns.js',
        draw: 'node draw.js',
        echo: 'echo no node here',
      },
      dependencies: { tool: 'file:tool' },
    },
    // no update check, nothing fetched: a launcher that tried would fail the test
    '.npmrc': 'update-notifier=false\noffline=true\nfund=false\naudit=false\n',
    'sim.js': SIM,
    'draw.js': DRAW,
    'sim.sh': 'node sim.js\n',
    'spawns.js': lines(
      "const { execSync } = require('node:child_process');",
      "process.stdout.write(execSync('npm run --silent test'));",
    ),
    'test/sim.test.js': lines("const { test } = require('node:test');", "test('sim', () => require('../sim.js'));"),
    'node_modules/tool/package.json': { name: 'tool', version: '1.0.0', bin: { tool: 'cli.js' } },
    'node_modules/tool/cli.js': lines('#!/usr/bin/env node', "require(require('node:path').resolve('sim.js'));"),
  });
  // npx's local bin, as npm install links it
  mkdirSync(join(dir, 'node_modules', '.bin'));
  symlinkSync('../tool/cli.js', join(dir, 'node_modules', '.bin', 'tool'));
  chmodSync(join(dir, 'node_modules', 'tool', 'cli.js'), 0o755);
  return dir;
}

/**
 * The environment a launcher runs in: this node and the pinned pnpm and yarn first on PATH, and
 * none of the `npm_*` variables the npm running the suite (`npm test`) set for its own script.
 */
export function launcherEnv(): Record<string, string | undefined> {
  const bin = tempDir('detdrift-bin-');
  for (const [name, script] of Object.entries(PINNED)) symlinkSync(script, join(bin, name));
  const env: Record<string, string | undefined> = {
    PATH: [dirname(process.execPath), bin, process.env.PATH].join(delimiter),
  };
  for (const key of Object.keys(process.env)) if (key.toLowerCase().startsWith('npm_')) env[key] = undefined;
  return env;
}
