import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { jsonSyntaxError } from '../../diffing/json-position.js';
import { checkConfig, EMPTY_CONFIG, type IgnoreRules, type Issue, type ProjectConfig } from './config-schema.js';
import { CliError } from './errors.js';
import { findRoot } from './project.js';

/**
 * The project's detdrift config: `detdrift.config.json` at the project root, or else the
 * `detdrift` field of its package.json. Loaded read → parse → normalize → validate, returning
 * `{ config, errors, warnings }`: nothing is thrown past this boundary, every problem names its
 * file and where in it (a JSON syntax error its line and column, a bad value its path, like
 * `seeds[2]`), and `config` is always usable (the empty config when nothing valid was found).
 *
 *   { "seeds": [42, "0x2a"], "command": ["node", "test/sim.js"],
 *     "ignore": { "sites": ["src/log.js", "lib/time.js:12"], "packages": ["pino"] },
 *     "controlled": ["src/rng.js:5"] }
 */
export const CONFIG_FILE = 'detdrift.config.json';
/** Far beyond any real config: a bigger file is refused before it is read. */
export const MAX_CONFIG_BYTES = 1 << 20;

export interface ConfigProblem extends Issue {
  /** the file the problem is in */
  readonly file: string;
}

export interface LoadedConfig {
  readonly config: ProjectConfig;
  /** the file the config came from; null when the project has none */
  readonly file: string | null;
  readonly errors: readonly ConfigProblem[];
  readonly warnings: readonly ConfigProblem[];
}

/** `file: path: message`, or `file: message` for a problem with the whole file. */
export function formatProblem(problem: ConfigProblem): string {
  return problem.path === ''
    ? `${problem.file}: ${problem.message}`
    : `${problem.file}: ${problem.path}: ${problem.message}`;
}

export function loadConfig(root: string): LoadedConfig {
  const own = join(root, CONFIG_FILE);
  const text = readText(own);
  const manifestFile = join(root, 'package.json');
  if (text.kind === 'text') {
    const loaded = parseConfig(text.text, own);
    const manifest = readText(manifestFile);
    if (manifest.kind === 'text' && parseConfig(manifest.text, manifestFile, 'detdrift').file !== null) {
      return {
        ...loaded,
        warnings: [
          ...loaded.warnings,
          { file: manifestFile, path: 'detdrift', message: `ignored: ${CONFIG_FILE} is used instead` },
        ],
      };
    }
    return loaded;
  }
  if (text.kind === 'error') return failed(own, text.message);
  const manifest = readText(manifestFile);
  if (manifest.kind === 'error') return failed(manifestFile, manifest.message);
  if (manifest.kind === 'missing') return { config: EMPTY_CONFIG, file: null, errors: [], warnings: [] };
  return parseConfig(manifest.text, manifestFile, 'detdrift');
}

/**
 * Parses config text. With `field`, the text is a package.json and the config is that field (a
 * package.json without it has no config; one that is not JSON is npm's problem, not ours).
 */
export function parseConfig(text: string, file: string, field?: string): LoadedConfig {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    if (field !== undefined) return { config: EMPTY_CONFIG, file: null, errors: [], warnings: [] }; // a broken package.json is npm's to report
    return failed(file, `not JSON: ${syntaxMessage(body)}`);
  }
  if (field !== undefined) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, field)) {
      return { config: EMPTY_CONFIG, file: null, errors: [], warnings: [] };
    }
    value = (value as Record<string, unknown>)[field];
  }
  const { config, errors, warnings } = checkConfig(value, field === undefined ? '' : `${field}.`);
  const inFile = (issue: Issue): ConfigProblem => ({ file, ...issue });
  return {
    config: errors.length > 0 ? EMPTY_CONFIG : config,
    file,
    errors: errors.map(inFile),
    warnings: warnings.map(inFile),
  };
}

function failed(file: string, message: string): LoadedConfig {
  return { config: EMPTY_CONFIG, file, errors: [{ file, path: '', message }], warnings: [] };
}

type Read = { kind: 'text'; text: string } | { kind: 'missing' } | { kind: 'error'; message: string };

/** A small regular file's text; a directory, a FIFO or a huge file is an error, not a hang. */
function readText(file: string): Read {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? { kind: 'missing' }
      : { kind: 'error', message: `cannot be read (${code ?? String(error)})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { kind: 'error', message: 'cannot be read: not a regular file' };
    if (stats.size > MAX_CONFIG_BYTES)
      return { kind: 'error', message: `${stats.size} bytes: larger than the ${MAX_CONFIG_BYTES} a config may have` };
    const bytes = Buffer.alloc(stats.size);
    let done = 0;
    while (done < bytes.length) {
      const count = readSync(fd, bytes, done, bytes.length - done, done);
      if (count === 0) break;
      done += count;
    }
    return { kind: 'text', text: bytes.subarray(0, done).toString('utf8') };
  } catch (error) {
    return {
      kind: 'error',
      message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    };
  } finally {
    closeSync(fd);
  }
}

/** A JSON syntax error, placed at its line and column the same on every Node version. */
function syntaxMessage(text: string): string {
  const { reason, line, column } = jsonSyntaxError(text);
  return `${reason} at line ${line}, column ${column}`;
}

/**
 * The CLI's view of the config: the project's (found from `cwd` up, like package.json), with its
 * warnings as lines to log. Errors refuse the command with ERR_CONFIG, exit status 2, each on its
 * own line with its file and path.
 */
export function projectConfig(cwd: string): { config: ProjectConfig; warnings: readonly string[] } {
  const loaded = loadConfig(findRoot(cwd));
  if (loaded.errors.length > 0) {
    const lines = loaded.errors.map(formatProblem);
    throw new CliError(
      'ERR_CONFIG',
      lines.length === 1 ? lines[0]! : `the config has ${lines.length} problems:\n  ${lines.join('\n  ')}`,
    );
  }
  return { config: loaded.config, warnings: loaded.warnings.map(formatProblem) };
}

/** The config's share of a comparing command's options (check, diff, report A B); a bad config is ERR_CONFIG. */
export function comparingConfig(cwd: string): {
  config: ProjectConfig;
  ignore: IgnoreRules;
  configWarnings: readonly string[];
} {
  const { config, warnings } = projectConfig(cwd);
  return { config, ignore: { ...config.ignore, runners: config.runners }, configWarnings: warnings };
}
