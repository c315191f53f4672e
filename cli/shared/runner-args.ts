/**
 * What a test runner needs added to the traced command for the hook to tell where its tests begin
 * and end (instrument/runners/). Jest and node:test need nothing: the hook reads jest-circus's
 * state and node:test's async resources itself. Mocha takes a `--require` of the file that hands
 * its Runner to the hook (mocha-setup); Mocha adds it to what .mocharc requires. The user's
 * arguments stay as they are.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The file Mocha loads (`--require`): from the same install as this CLI (dist/cli/bundle/ → dist/instrument/). */
export const MOCHA_SETUP = fileURLToPath(new URL('../../instrument/runners/mocha-setup.js', import.meta.url));

export interface RunnerArgs {
  /** the command to run: `command` with the runner's arguments in */
  readonly command: readonly string[];
  /** what was added, for the debug log; empty when nothing was */
  readonly added: readonly string[];
}

/** Commands that run the next argument as the program (their own options first). */
const LAUNCHERS = new Set(['node', 'npx', 'pnpx', 'bunx']);
const MOCHA = new Set(['mocha', '_mocha']);

/** `command` with what the runner it starts needs, where one is seen. */
export function withRunnerArgs(command: readonly string[], cwd: string): RunnerArgs {
  const added = ['--require', MOCHA_SETUP];
  const at = mochaAt(command);
  if (at >= 0) return { command: [...command.slice(0, at + 1), ...added, ...command.slice(at + 1)], added };
  const script = npmScript(command, cwd);
  if (script !== null && mochaAt(script) >= 0) {
    // `npm test -- ARGS` appends ARGS to the script, whose last command is Mocha's
    return { command: [...command, ...(command.includes('--') ? [] : ['--']), ...added], added };
  }
  return { command, added: [] };
}

/** Where Mocha's bin is in `command` (as the program, after launchers and their options), or -1. */
function mochaAt(command: readonly string[]): number {
  for (let i = 0; i < command.length; i++) {
    const name = programName(command[i]!);
    if (MOCHA.has(name)) return i;
    if (i > 0 && command[i]!.startsWith('-')) continue;
    if (!LAUNCHERS.has(name)) return -1;
  }
  return -1;
}

/** `node_modules/mocha/bin/mocha.js`, `.bin/mocha`, `mocha.cmd`: `mocha`. */
function programName(arg: string): string {
  const name = basename(arg).toLowerCase();
  for (const extension of ['.js', '.cjs', '.mjs', '.cmd', '.exe']) {
    if (name.endsWith(extension)) return name.slice(0, -extension.length);
  }
  return name;
}

/**
 * The words of the package.json script that `npm test` (`npm run X`, `npm run-script X`) runs,
 * when it is one command (no `&&`, `;`, pipe): arguments after `--` reach only its last command.
 */
function npmScript(command: readonly string[], cwd: string): string[] | null {
  if (command.length < 2 || programName(command[0]!) !== 'npm') return null;
  const [verb, named] = [command[1]!, command[2]];
  const name = verb === 'test' || verb === 't' ? 'test' : verb === 'run' || verb === 'run-script' ? named : undefined;
  if (name === undefined) return null;
  let scripts: unknown;
  try {
    scripts = (JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { scripts?: unknown }).scripts;
  } catch {
    return null; // npm itself says what is wrong with the manifest
  }
  const script = (scripts as Record<string, unknown> | undefined)?.[name];
  if (typeof script !== 'string' || /&&|\|\||[;|&]/.test(script)) return null;
  return script.trim().split(/\s+/);
}
