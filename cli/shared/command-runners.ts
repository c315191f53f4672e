/**
 * The runners and loaders with a cache that a command names, read from its words before it runs:
 * a runner's bin (`npx jest`, `node node_modules/vitest/vitest.mjs run`), a loader's module
 * (`node --import tsx`, `-r ts-node/register`), or a package script that names one (`npm test`,
 * `pnpm run unit`, `yarn test`: its words, read the same way). What a command hides (a shell
 * script, a bin of another name) the first run's traces show instead (cli/shared/warmup.ts).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CACHING_RUNNERS, type RunnerName } from '../../diffing/runners.js';
import { findRoot } from './project.js';

/** Bins whose name is not their package's. */
const BINS: Readonly<Record<string, RunnerName>> = {
  'ts-node-esm': 'ts-node',
  'ts-node-script': 'ts-node',
  'ts-node-cwd': 'ts-node',
  'ts-node-transpile-only': 'ts-node',
};

const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
/** npm's own names for a script's lifecycle command, `npm t` being `npm test` */
const LIFECYCLE: Readonly<Record<string, string>> = { test: 'test', t: 'test', tst: 'test', start: 'start' };
const RUN = new Set(['run', 'run-script', 'rum', 'urn']);
/** a script that runs a script that runs ...: how deep to follow */
const MAX_DEPTH = 3;

/** The caching runners `command`, run in `cwd`, names, in RUNNER_NAMES order. */
export function runnersInCommand(command: readonly string[], cwd: string): RunnerName[] {
  const found = new Set<RunnerName>();
  collect(command, scriptsOf(cwd), 0, found);
  return CACHING_RUNNERS.filter((name) => found.has(name));
}

function collect(
  words: readonly string[],
  scripts: Readonly<Record<string, string>>,
  depth: number,
  found: Set<RunnerName>,
): void {
  for (const [index, word] of words.entries()) {
    const runner = runnerOfWord(word);
    if (runner) found.add(runner);
    if (!PACKAGE_MANAGERS.has(bareName(word)) || depth >= MAX_DEPTH) continue;
    const script = scriptNamed(words.slice(index + 1), scripts);
    if (script !== null) collect(shellWords(scripts[script]!), scripts, depth + 1, found);
  }
}

/** The script a package manager's arguments run: `test` for `npm t`, `unit` for `pnpm run unit` or `yarn unit`. */
function scriptNamed(args: readonly string[], scripts: Readonly<Record<string, string>>): string | null {
  const words = args.filter((arg) => !arg.startsWith('-'));
  const first = words[0];
  if (first === undefined) return null;
  const name = RUN.has(first) ? words[1] : (LIFECYCLE[first] ?? first);
  return name !== undefined && Object.hasOwn(scripts, name) ? name : null;
}

/**
 * The caching runner a word names: a path into its package (`node_modules/vitest/vitest.mjs`,
 * `node_modules/.bin/jest`), a module of it (`tsx/esm`, `ts-node/register`, `--import=tsx`), or its
 * bin as a command (`jest`). A project's own file (`./jest.js`, `test/tsx.test.ts`) names none.
 */
function runnerOfWord(word: string): RunnerName | null {
  const value = word.startsWith('-') ? word.slice(word.indexOf('=') + 1) : word;
  const path = value.replace(/\\/g, '/');
  const inside = path.lastIndexOf('node_modules/');
  let segments: string[];
  if (inside >= 0) segments = path.slice(inside + 'node_modules/'.length).split('/');
  else if (path.startsWith('.') || path.startsWith('/') || /^[A-Za-z]:/.test(path)) return null;
  else segments = path.split('/');
  const name = segments[0] === '.bin' ? (segments[1] ?? '').replace(/\.(cmd|ps1)$/, '') : segments[0]!;
  if (BINS[name]) return BINS[name];
  return CACHING_RUNNERS.includes(name as RunnerName) ? (name as RunnerName) : null;
}

/** `npm` for `npm`, `/usr/bin/npm` or `npm.cmd`. */
function bareName(word: string): string {
  return (word.split(/[\\/]/).pop() ?? '').replace(/\.(cmd|exe|js|cjs|mjs)$/, '');
}

/** A script's words as a shell splits them, near enough: quotes dropped, `&&`, `;` and `|` apart. */
function shellWords(script: string): string[] {
  return script
    .replace(/&&|\|\||[;|&()]/g, ' ')
    .split(/\s+/)
    .map((word) => word.replace(/^["']|["']$/g, ''))
    .filter((word) => word !== '');
}

/** The scripts of the package.json nearest `cwd`; none when it cannot be read. */
function scriptsOf(cwd: string): Readonly<Record<string, string>> {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(findRoot(cwd), 'package.json'), 'utf8'));
  } catch {
    // No package.json, or one npm could not run either: the command's own words are all there is.
    return {};
  }
  const scripts = (manifest as { scripts?: unknown } | null)?.scripts;
  if (typeof scripts !== 'object' || scripts === null) return {};
  return Object.fromEntries(Object.entries(scripts).filter(([, text]) => typeof text === 'string'));
}
