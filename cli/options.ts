import { resolve } from 'node:path';
import type { Mode } from '../tracer/format.js';
import { DEFAULTS, LOG_LEVELS, MODES, RECORDABLE_MODES, type LogLevel } from './defaults.js';
import { CliError } from './errors.js';

/** What `args.ts` hands over: the raw `util.parseArgs` values, positionals and the command after `--`. */
export interface RawInvocation {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
  /** everything after `--`, or null when there was no `--` */
  readonly command: readonly string[] | null;
}

export interface CommonOptions {
  readonly logLevel: LogLevel;
  readonly cwd: string;
}

export interface RecordOptions extends CommonOptions {
  /** absolute: the directory that receives one trace per process; its old traces are removed first */
  readonly out: string;
  readonly mode: Mode;
  /** kept as typed (`42` and `0x2a` stay apart in the header), null when not given */
  readonly seed: string | null;
  /** the traced command and its arguments, never empty */
  readonly command: readonly string[];
}

export interface ShowOptions extends CommonOptions {
  /** absolute: one trace file, or a directory of them */
  readonly trace: string;
  readonly json: boolean;
}

export interface DiffOptions extends CommonOptions {
  /** absolute: two trace files, or two directories compared process by process */
  readonly a: string;
  readonly b: string;
  readonly json: boolean;
  /** confirm the cause by replay when run A's command can be re-run here */
  readonly confirm: boolean;
}

export interface ReplayOptions extends CommonOptions {
  /** absolute: the recorded run's trace directory */
  readonly trace: string;
  /** absolute: where the replayed run's traces go; null: a temporary directory */
  readonly out: string | null;
  readonly command: readonly string[];
  readonly json: boolean;
}

export interface CheckOptions extends CommonOptions {
  readonly command: readonly string[];
  readonly mode: Mode;
  readonly seed: string | null;
  /** at least 2: each later run is compared with the first */
  readonly runs: number;
  /** absolute: where the runs' traces go (`run-1`, `run-2`, ...) and stay; null: a temporary directory */
  readonly out: string | null;
  /** keep the temporary traces and say where they are */
  readonly keep: boolean;
  readonly json: boolean;
  /** confirm the cause by replay bisection (`--no-confirm` skips it) */
  readonly confirm: boolean;
}

export interface DemoOptions extends CommonOptions {
  readonly json: boolean;
}

export function normalizeDiff(raw: RawInvocation, cwd: string): DiffOptions {
  if (raw.command !== null) throw usage('diff takes no command after "--"');
  if (raw.positionals.length !== 2) throw usage(`diff needs two traces (files or directories) A and B, got ${raw.positionals.length}`);
  return Object.freeze({
    ...common(raw, cwd),
    a: resolve(cwd, raw.positionals[0]!),
    b: resolve(cwd, raw.positionals[1]!),
    json: raw.values.json === true,
    confirm: raw.values['no-confirm'] === true ? false : DEFAULTS.confirm,
  });
}

export function normalizeReplay(raw: RawInvocation, cwd: string): ReplayOptions {
  if (raw.positionals.length !== 1) throw usage(`replay needs one TRACE directory before "--", got ${raw.positionals.length}`);
  if (raw.command === null || raw.command.length === 0) throw usage('replay needs the command to run after "--", e.g. detdrift replay trace -- node app.js');
  const out = raw.values.out;
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    out: typeof out === 'string' && out !== '' ? resolve(cwd, out) : null,
    command: Object.freeze([...raw.command]),
    json: raw.values.json === true,
  });
}

export function normalizeCheck(raw: RawInvocation, cwd: string): CheckOptions {
  if (raw.positionals.length > 0) throw usage(`check takes no arguments before "--", got ${JSON.stringify(raw.positionals)}`);
  if (raw.command === null || raw.command.length === 0) {
    throw usage('check needs the command to run after "--", e.g. detdrift check --seed 42 -- node test/sim.js');
  }
  const out = raw.values.out;
  return Object.freeze({
    ...common(raw, cwd),
    command: Object.freeze([...raw.command]),
    mode: validateMode(raw.values.mode),
    seed: validateSeed(raw.values.seed),
    runs: validateRuns(raw.values.runs),
    out: typeof out === 'string' && out !== '' ? resolve(cwd, out) : null,
    keep: raw.values.keep === true,
    json: raw.values.json === true,
    confirm: raw.values['no-confirm'] === true ? false : DEFAULTS.confirm,
  });
}

export function normalizeDemo(raw: RawInvocation, cwd: string): DemoOptions {
  if (raw.positionals.length > 0 || raw.command !== null) throw usage('demo takes no arguments');
  return Object.freeze({ ...common(raw, cwd), json: raw.values.json === true });
}

export function normalizeRecord(raw: RawInvocation, cwd: string): RecordOptions {
  if (raw.positionals.length > 0) {
    throw usage(`record takes no arguments before "--", got ${JSON.stringify(raw.positionals)}: put the command after "--"`);
  }
  if (raw.command === null || raw.command.length === 0) {
    throw usage('record needs the command to trace after "--", e.g. detdrift record --out trace -- node app.js');
  }
  const out = raw.values.out;
  if (typeof out !== 'string' || out === '') throw usage('record needs --out DIR: the directory that receives the traces');
  return Object.freeze({
    ...common(raw, cwd),
    out: resolve(cwd, out),
    mode: validateMode(raw.values.mode),
    seed: validateSeed(raw.values.seed),
    command: Object.freeze([...raw.command]),
  });
}

export function normalizeShow(raw: RawInvocation, cwd: string): ShowOptions {
  if (raw.command !== null) throw usage('show takes no command after "--"');
  if (raw.positionals.length !== 1) {
    throw usage(`show needs exactly one TRACE (a trace file or a directory of them), got ${raw.positionals.length}`);
  }
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    json: raw.values.json === true ? true : DEFAULTS.json,
  });
}

function common(raw: RawInvocation, cwd: string): CommonOptions {
  return { logLevel: validateLogLevel(raw.values['log-level']), cwd };
}

// Each validator names the option, the value it got and the values it allows.

function validateMode(value: unknown): Mode {
  if (value === undefined) return DEFAULTS.mode;
  if (RECORDABLE_MODES.includes(value as Mode)) return value as Mode;
  const planned =
    value === 'replay'
      ? '; replay runs through "detdrift replay TRACE -- CMD"'
      : MODES.includes(value as Mode) ? `; ${JSON.stringify(value)} is planned but not available in this version` : '';
  throw new CliError('ERR_OPTION_VALUE', `--mode got ${JSON.stringify(value)}; allowed: ${RECORDABLE_MODES.join(', ')}${planned}`);
}

function validateSeed(value: unknown): string | null {
  if (value === undefined) return DEFAULTS.seed;
  if (typeof value === 'string' && /^(?:\d+|0x[0-9a-f]+)$/i.test(value)) return value;
  throw new CliError('ERR_OPTION_VALUE', `--seed got ${JSON.stringify(value)}; allowed: a non-negative integer, decimal (42) or hexadecimal (0x2a)`);
}

function validateRuns(value: unknown): number {
  if (value === undefined) return DEFAULTS.runs;
  const runs = Number(value);
  if (typeof value === 'string' && /^\d+$/.test(value) && runs >= 2 && runs <= 100) return runs;
  throw new CliError('ERR_OPTION_VALUE', `--runs got ${JSON.stringify(value)}; allowed: a whole number from 2 to 100`);
}

function validateLogLevel(value: unknown): LogLevel {
  if (value === undefined) return DEFAULTS.logLevel;
  if (LOG_LEVELS.includes(value as LogLevel)) return value as LogLevel;
  throw new CliError('ERR_OPTION_VALUE', `--log-level got ${JSON.stringify(value)}; allowed: ${LOG_LEVELS.join(', ')}`);
}

function usage(message: string): CliError {
  return new CliError('ERR_USAGE', message);
}
