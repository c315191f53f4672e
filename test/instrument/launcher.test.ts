/**
 * instrument/launcher.ts: which main scripts are a package manager's, and what the hook does in one
 * (nothing: no trace, no patch, the hook passed on as it came).
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isLauncher } from '../../instrument/launcher.js';
import { lines } from '../cli-fixtures.js';
import { project, REGISTER, runHookedOk } from '../helpers.js';
import { NPM_CLI, PINNED, SIM } from '../launcher-fixtures.js';

const manifest = (name?: string) => ({ ...(name === undefined ? {} : { name }), version: '1.0.0' });

test("a launcher is told by its script's name, then by its package's", () => {
  const dir = project({
    'lib/npm/package.json': manifest('npm'),
    'lib/npm/bin/npm-cli.js': '',
    'lib/npm/bin/npx-cli.js': '',
    'lib/pnpm/package.json': manifest('pnpm'),
    'lib/pnpm/bin/pnpm.mjs': '',
    'lib/yarn/package.json': manifest('yarn'),
    'lib/yarn/bin/yarn.js': '',
    'lib/@yarnpkg/cli-dist/package.json': manifest('@yarnpkg/cli-dist'),
    'lib/@yarnpkg/cli-dist/bin/yarn.js': '',
    'lib/corepack/package.json': manifest('corepack'),
    'lib/corepack/dist/corepack.js': '',
    'lib/corepack/dist/pnpm.js': '',
    'app/package.json': manifest('fixture-app'),
    'app/.yarn/releases/yarn-4.5.0.cjs': '',
    'app/sim.js': '',
    'app/npm.js': '',
    'app/scripts/yarn.cjs': '',
    'app/releases/yarn-4.5.0.cjs': '',
    'app/.yarn/releases/yarn-4.5.0': '',
    'lib/my-npm/package.json': manifest('my-npm'),
    'lib/my-npm/bin/npm-cli.js': '',
    'lib/unnamed/package.json': manifest(),
    'lib/unnamed/pnpm.js': '',
  });
  const at = (path: string) => join(dir, path);
  const expected: Record<string, boolean> = {
    'lib/npm/bin/npm-cli.js': true,
    'lib/npm/bin/npx-cli.js': true,
    'lib/pnpm/bin/pnpm.mjs': true,
    'lib/yarn/bin/yarn.js': true,
    'lib/@yarnpkg/cli-dist/bin/yarn.js': true,
    'lib/corepack/dist/corepack.js': true,
    'lib/corepack/dist/pnpm.js': true,
    'app/.yarn/releases/yarn-4.5.0.cjs': true,
    // the program's own, whatever it is called
    'app/sim.js': false,
    'app/npm.js': false,
    'app/scripts/yarn.cjs': false,
    'app/releases/yarn-4.5.0.cjs': false,
    'app/.yarn/releases/yarn-4.5.0': false,
    'lib/my-npm/bin/npm-cli.js': false,
    'lib/unnamed/pnpm.js': false,
    'app/npx.js': false, // no such file
  };
  const links: Record<string, [string, boolean]> = {
    // a link on PATH named as the launcher (npm's own bin/npm), and one that only borrows its name
    'app/pnpm': ['lib/pnpm/bin/pnpm.mjs', true],
    'app/yarn': ['app/sim.js', false],
  };
  if (process.platform !== 'win32') {
    for (const [link, [target, launcher]] of Object.entries(links)) {
      symlinkSync(at(target), at(link));
      expected[link] = launcher;
    }
  }
  const actual = Object.fromEntries(Object.keys(expected).map((path) => [path, isLauncher(at(path))]));
  assert.deepEqual(actual, expected);
  assert.equal(isLauncher(undefined), false, 'node -e, the REPL');
  assert.equal(isLauncher(''), false);
});

test('the real launchers are launchers: npm, npx and corepack as they come with node, the pinned pnpm and yarn', () => {
  const scripts = [...Object.values(PINNED), join(PINNED.pnpm, '..', 'pnpx.cjs')];
  if (NPM_CLI) {
    const corepack = join(NPM_CLI, '..', '..', '..', 'corepack', 'dist');
    const shims = ['corepack.js', 'pnpm.js', 'yarn.js'].map((shim) => join(corepack, shim));
    scripts.push(NPM_CLI, join(NPM_CLI, '..', 'npx-cli.js'), ...shims.filter((shim) => existsSync(shim)));
  }
  assert.deepEqual(
    scripts.filter((script) => !isLauncher(script)),
    [],
  );
});

// A preload after the hook's: at exit, it writes down whether this process's sources were patched.
const PROBE = lines(
  "const { appendFileSync } = require('node:fs');",
  "const { isProxy } = require('node:util').types;",
  "process.on('exit', () => appendFileSync(process.env.PROBE_OUT, JSON.stringify({",
  "  script: require('node:path').basename(process.argv[1] ?? ''),",
  '  patched: [Date, Date.now, Math.random, setTimeout].some((source) => isProxy(source)),',
  "}) + '\\n'));",
);

test('npm records nothing and patches nothing, and its child is named as if npm were not there', {
  skip: NPM_CLI === null && 'no npm beside this node',
}, () => {
  const dir = project({
    'package.json': { ...manifest('fixture-app'), scripts: { test: 'node sim.js' } },
    '.npmrc': 'update-notifier=false\noffline=true\n',
    'sim.js': SIM,
    'probe.cjs': PROBE,
  });
  const out = join(dir, 'probe.jsonl');
  const run = runHookedOk([NPM_CLI!, 'test'], {
    cwd: dir,
    env: { NODE_OPTIONS: `--import="${REGISTER}" --require="${join(dir, 'probe.cjs')}"`, PROBE_OUT: out },
  });
  const probes = readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  assert.deepEqual(probes, [
    { script: 'sim.js', patched: true },
    { script: 'npm-cli.js', patched: false },
  ]);
  assert.deepEqual([...run.traces.keys()], ['0']);
  assert.equal(run.traces.get('0')!.header.command.join(' '), 'node sim.js');
});
