/**
 * What a detdrift config may hold, key by key: how each value is normalized (a single seed
 * becomes a list, a range `"1..1000"` its seeds, a command string is split at spaces) and what it
 * must then be. Every problem is reported with its path (`seeds[2]`, `ignore.packages[0]`) and the
 * value it got, never thrown.
 */

import type { IgnoreRules } from '../../diffing/ignore.js';
import { RUNNER_NAMES, type RunnerName, type RunnerSetting } from '../../diffing/runners.js';
import { nearest } from './nearest.js';
import { expandSeeds } from './seeds.js';

export type { IgnoreRules, RunnerSetting };

/** The project's config, normalized: what `check` and `diff` use when the command line is silent. */
export interface ProjectConfig {
  /**
   * the seeds `check` runs with, in order, when neither `--seed` nor `--seeds` is given (ranges expanded);
   * null: none configured
   */
  readonly seeds: readonly string[] | null;
  /** the command `check` runs when none follows `--`; null: none configured */
  readonly command: readonly string[] | null;
  /** calls left out of the comparison: their stack's first frame is in one of these */
  readonly ignore: IgnoreRules;
  /**
   * Test runners whose own calls and outputs (timings, caches, ids, report lines) are left out:
   * `"auto"` (the default) those the traces show, `"off"` none, or a list of `jest`, `vitest`,
   * `mocha`, `node:test`, left out whether the traces show them or not.
   */
  readonly runners: RunnerSetting;
  /**
   * Sites the project declares controlled (its own seeded wrapper of a clock, say), as `path` or
   * `path:line`. Loaded and checked; the comparison does not use them yet.
   */
  readonly controlled: readonly string[];
}

export const EMPTY_CONFIG: ProjectConfig = Object.freeze({
  seeds: null,
  command: null,
  ignore: Object.freeze({ sites: Object.freeze([]), packages: Object.freeze([]) }),
  runners: 'auto',
  controlled: Object.freeze([]),
});

export interface Issue {
  /** where in the config: `seeds[2]`, `ignore.packages[0]`; empty for the whole document */
  readonly path: string;
  readonly message: string;
}

const KNOWN_KEYS = ['seeds', 'command', 'ignore', 'runners', 'controlled'] as const;
const IGNORE_KEYS = ['sites', 'packages'] as const;

// A seed as `--seed` takes it: decimal or 0x hexadecimal, a safe integer.
const SEED = /^(?:\d{1,16}|0x[0-9a-f]{1,13})$/i;
const SEED_RANGE = /^\d{1,16}\.\.\d{1,16}$/;
// npm's rules for a package name, loosely: lower case, an optional scope, no spaces or slashes beyond the scope's.
const PACKAGE = /^(?:@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/;
// `path` or `path:line`: no NUL, not absolute, no `..` segment, no backslash (paths are written with `/`).
const SITE = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|:|$))[^\0\\:]+(?::[1-9]\d{0,8})?$/;

/** Normalizes and validates a parsed config; `base` prefixes every path (`detdrift.` in package.json). */
export function checkConfig(
  value: unknown,
  base: string,
): { config: ProjectConfig; errors: Issue[]; warnings: Issue[] } {
  const errors: Issue[] = [];
  const warnings: Issue[] = [];
  const root = base.replace(/\.$/, '');
  const at = (path: string) => (root === '' ? path : path === '' ? root : `${root}.${path}`);
  if (!isPlainObject(value)) {
    errors.push({ path: at(''), message: `expected an object, got ${describe(value)}` });
    return { config: EMPTY_CONFIG, errors, warnings };
  }
  for (const key of Object.keys(value)) {
    if (!(KNOWN_KEYS as readonly string[]).includes(key)) {
      warnings.push({
        path: member(root, key),
        message: `unknown key, ignored${suggest(key, KNOWN_KEYS)}; known: ${KNOWN_KEYS.join(', ')}`,
      });
    }
  }
  const seeds = own(value, 'seeds') === undefined ? null : seedList(own(value, 'seeds'), at('seeds'), errors);
  const command =
    own(value, 'command') === undefined ? null : commandList(own(value, 'command'), at('command'), errors);
  const ignore = ignoreRules(own(value, 'ignore'), at('ignore'), errors, warnings);
  const runnersValue = own(value, 'runners');
  const runners = runnersValue === undefined ? 'auto' : runnerSetting(runnersValue, at('runners'), errors);
  const controlled =
    own(value, 'controlled') === undefined ? [] : list(own(value, 'controlled'), at('controlled'), errors, siteEntry);
  return {
    config: Object.freeze({ seeds, command, ignore, runners, controlled: Object.freeze(controlled) }),
    errors,
    warnings,
  };
}

function seedList(value: unknown, path: string, errors: Issue[]): readonly string[] | null {
  const items = Array.isArray(value) ? value : [value]; // one seed stands for a list of one
  if (items.length === 0) {
    errors.push({ path, message: 'expected at least one seed, got an empty list' });
    return null;
  }
  const texts: string[] = [];
  items.forEach((item, index) => {
    const where = Array.isArray(value) ? `${path}[${index}]` : path;
    const text = typeof item === 'number' && Number.isSafeInteger(item) && item >= 0 ? String(item) : item;
    if (typeof text === 'string' && (SEED.test(text) || SEED_RANGE.test(text))) texts.push(text);
    else
      errors.push({
        path: where,
        message: `expected an integer from 0 to 2^53-1 (a number, or a decimal or 0x string) or a range of them ("1..1000"), got ${describe(item)}`,
      });
  });
  if (texts.length !== items.length) return null;
  // Ranges expanded as `--seeds` expands them; a seed named twice is the whole list's problem.
  const { seeds, problem } = expandSeeds(texts);
  if (problem !== null) errors.push({ path, message: problem });
  return seeds && Object.freeze([...seeds]);
}

function commandList(value: unknown, path: string, errors: Issue[]): readonly string[] | null {
  // A string is split at spaces, like a shell would without quotes; a list keeps arguments that hold spaces.
  const items = typeof value === 'string' ? value.split(/\s+/).filter(Boolean) : value;
  if (!Array.isArray(items) || items.length === 0) {
    errors.push({
      path,
      message: `expected a command: a non-empty list of strings, or a string, got ${describe(value)}`,
    });
    return null;
  }
  const bad = items.findIndex((item) => typeof item !== 'string' || item === '' || item.includes('\0'));
  if (bad >= 0) {
    errors.push({ path: `${path}[${bad}]`, message: `expected a non-empty string, got ${describe(items[bad])}` });
    return null;
  }
  return Object.freeze([...(items as string[])]);
}

function ignoreRules(value: unknown, path: string, errors: Issue[], warnings: Issue[]): IgnoreRules {
  if (value === undefined) return EMPTY_CONFIG.ignore;
  if (!isPlainObject(value)) {
    errors.push({ path, message: `expected an object with "sites" and "packages" lists, got ${describe(value)}` });
    return EMPTY_CONFIG.ignore;
  }
  for (const key of Object.keys(value)) {
    if (!(IGNORE_KEYS as readonly string[]).includes(key))
      warnings.push({
        path: member(path, key),
        message: `unknown key, ignored${suggest(key, IGNORE_KEYS)}; known: ${IGNORE_KEYS.join(', ')}`,
      });
  }
  const sites = own(value, 'sites') === undefined ? [] : list(own(value, 'sites'), `${path}.sites`, errors, siteEntry);
  const packages =
    own(value, 'packages') === undefined ? [] : list(own(value, 'packages'), `${path}.packages`, errors, packageEntry);
  return Object.freeze({ sites: Object.freeze(sites), packages: Object.freeze(packages) });
}

function runnerSetting(value: unknown, path: string, errors: Issue[]): RunnerSetting {
  if (value === 'auto' || value === 'off') return value;
  if (!Array.isArray(value)) {
    const expected = `"auto", "off" or a list of runners (${RUNNER_NAMES.join(', ')})`;
    errors.push({ path, message: `expected ${expected}, got ${describe(value)}` });
    return 'auto';
  }
  return Object.freeze(list(value, path, errors, runnerEntry) as RunnerName[]);
}

type Entry = (item: unknown) => string | null;

function list(value: unknown, path: string, errors: Issue[], entry: Entry): string[] {
  if (!Array.isArray(value)) {
    errors.push({ path, message: `expected a list, got ${describe(value)}` });
    return [];
  }
  const kept: string[] = [];
  value.forEach((item, index) => {
    const problem = entry(item);
    if (problem === null) kept.push(item as string);
    else errors.push({ path: `${path}[${index}]`, message: `${problem}, got ${describe(item)}` });
  });
  return kept;
}

const siteEntry: Entry = (item) =>
  typeof item === 'string' && SITE.test(item)
    ? null
    : 'expected a project-relative "path" or "path:line" (with /, no ..)';
const runnerEntry: Entry = (item) =>
  (RUNNER_NAMES as readonly unknown[]).includes(item) ? null : `expected one of ${RUNNER_NAMES.join(', ')}`;
const packageEntry: Entry = (item) =>
  typeof item === 'string' && item.length <= 214 && PACKAGE.test(item)
    ? null
    : 'expected a package name without a version, e.g. "pino" or "@scope/name"';

/** A value as an error message shows it: short, and never a walk of something deep. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (Array.isArray(value)) return value.length === 0 ? 'an empty list' : `a list of ${value.length}`;
  if (value === null) return 'null';
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** `path.key`, or `path["odd key"]` for a key that is not a plain name (cut to 40 characters). */
function member(path: string, key: string): string {
  if (/^[A-Za-z_$][\w$]{0,39}$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key)}]`;
}

function own(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** ` (did you mean "seeds"?)` for a key one or two edits away from a known one. */
function suggest(key: string, known: readonly string[]): string {
  const near = nearest(key, known);
  return near ? ` (did you mean "${near}"?)` : '';
}
