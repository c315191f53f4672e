/**
 * What every command's options share: how an option is declared for util.parseArgs and help, what
 * the parser hands a command, the shape of a command's own `options.ts` (its specs, its normalize
 * function, the loader of its code), and the log options every command takes.
 */
import { resolve } from 'node:path';
import { DEFAULTS, LOG_FILE_VAR, LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './defaults.js';
import { CliError } from './errors.js';
import type { Logger } from './logger.js';

/** One option: how util.parseArgs reads it, and what `--help` says of it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** the value's name in help (`DIR`, `N`); none for a boolean */
  readonly value?: string;
  readonly help: string;
  /** the default as help shows it; none when leaving the option out means nothing more than its help says */
  readonly default?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** What `args.ts` hands over: the raw `util.parseArgs` values, positionals and the command after `--`. */
export interface RawInvocation {
  readonly values: Readonly<Record<string, string | boolean | ReadonlyArray<string | boolean> | undefined>>;
  readonly positionals: readonly string[];
  /** everything after `--`, or null when there was no `--` */
  readonly command: readonly string[] | null;
}

export interface CommonOptions {
  readonly logLevel: LogLevel;
  /** stderr's log: sentences (`human`) or pino's JSON lines (`json`) */
  readonly logFormat: LogFormat;
  /** absolute: `--log-file`, else $DETDRIFT_LOG_FILE: a file that also gets the log as JSON lines; null: none */
  readonly logFile: string | null;
  readonly cwd: string;
  /** `--verbose`: the text forms show detail a reviewer reads past (where source maps moved a frame) */
  readonly verbose: boolean;
}

/** What every command receives besides its options. */
export interface CommandContext {
  readonly logger: Logger;
}

/**
 * A command as its `options.ts` declares it: what help prints, how the parsed command line becomes
 * its options, and the loader of its code. `run` resolves to the exit status.
 */
export interface Command<O extends CommonOptions = CommonOptions> {
  readonly usage: string;
  readonly options: OptionSpecs;
  readonly example: string;
  /** the parsed command line as the command's frozen options; a bad one throws its coded error */
  normalize(raw: RawInvocation, cwd: string): O;
  /** the command's code, loaded once its options are valid */
  load(): Promise<{ run(options: O, context: CommandContext): Promise<number> }>;
}

export const LOG: OptionSpecs = {
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    help: `how much of detdrift's own log to write: ${LOG_LEVELS.join(', ')}`,
    default: DEFAULTS.logLevel,
  },
  'log-format': {
    type: 'string',
    value: 'FORMAT',
    help: `the log on stderr: ${LOG_FORMATS.join(' (sentences) or ')} (pino's lines)`,
    default: DEFAULTS.logFormat,
  },
  'log-file': {
    type: 'string',
    value: 'FILE',
    help: 'also append the log to FILE as JSON lines',
    default: `$${LOG_FILE_VAR}`,
  },
};

/** The options every command takes: the log's level, format and file, and the working directory. */
export function common(raw: RawInvocation, cwd: string, env: NodeJS.ProcessEnv = process.env): CommonOptions {
  const file = raw.values['log-file'] ?? env[LOG_FILE_VAR];
  return {
    logLevel: validateLogLevel(raw.values['log-level']),
    logFormat: validateLogFormat(raw.values['log-format']),
    logFile: typeof file === 'string' && file !== '' ? resolve(cwd, file) : null,
    cwd,
    verbose: raw.values.verbose === true,
  };
}

// Each validator names the option, the value it got and the values it allows.

function validateLogLevel(value: unknown): LogLevel {
  if (value === undefined) return DEFAULTS.logLevel;
  if (LOG_LEVELS.includes(value as LogLevel)) return value as LogLevel;
  throw new CliError('ERR_OPTION_VALUE', `--log-level got ${JSON.stringify(value)}; allowed: ${LOG_LEVELS.join(', ')}`);
}

function validateLogFormat(value: unknown): LogFormat {
  if (value === undefined) return DEFAULTS.logFormat;
  if (LOG_FORMATS.includes(value as LogFormat)) return value as LogFormat;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--log-format got ${JSON.stringify(value)}; allowed: ${LOG_FORMATS.join(', ')}`,
  );
}

/** A path option's value resolved against `cwd`; null when it is not given or empty. */
export function pathOption(value: unknown, cwd: string): string | null {
  return typeof value === 'string' && value !== '' ? resolve(cwd, value) : null;
}

export function usage(message: string): CliError {
  return new CliError('ERR_USAGE', message);
}
