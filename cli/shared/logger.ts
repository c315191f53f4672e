import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DestinationStream, Logger as PinoLogger, pino as Pino } from 'pino';
import { inert, inertJson } from '../../report/untrusted.js';
import type { LogFormat, LogLevel } from './defaults.js';

/** What the commands log through: pino's methods, a line at a level. */
export type Logger = Pick<PinoLogger, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'>;

export interface LogOptions {
  readonly level: LogLevel;
  /** stderr's form: sentences for a person, or pino's JSON lines for a machine */
  readonly format: LogFormat;
  /** absolute: a file that also receives every line as JSON; null: none */
  readonly file: string | null;
}

/**
 * The tool's own log, on stderr: stdout belongs to the traced program (record) or to the
 * command's output (show --json), so a log line there would corrupt what a script reads.
 * Synchronous, so lines written just before exit are not lost. A line can carry a program's
 * stderr or a trace's strings: JSON is written `inertJson` and sentences `inert`, the same data,
 * nothing for a terminal or a CI runner to act on.
 *
 * pino is loaded when the first line at an enabled level is logged, not before: at the default
 * level (warn) most runs log nothing, and loading pino cost every command 3-5 ms of its start,
 * before `record` could start the program. Taken from node_modules (with `createRequire`, as the
 * lockfile parsers are), so that it loads synchronously on the line that needs it. A log file, or
 * a level below warn, asks for lines: pino is made at once (the file exists even if nothing is
 * logged).
 */
export function createLogger(options: LogOptions): Logger {
  if (options.file !== null || PINO_LEVELS[options.level] < PINO_LEVELS.warn) return createPino(options);
  let made: Logger | undefined;
  const threshold = PINO_LEVELS[options.level];
  const method =
    (name: keyof Logger): Logger[keyof Logger] =>
    (...args: Parameters<Logger['info']>) => {
      if (PINO_LEVELS[name] < threshold) return;
      made ??= createPino(options);
      made[name](...args);
    };
  return {
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
  };
}

/** pino's numbers for its levels; `silent` is above every line. */
const PINO_LEVELS: Readonly<Record<LogLevel, number>> = {
  trace: 10,
  debug: 20,
  info: 30,
  warn: 40,
  error: 50,
  fatal: 60,
  silent: Number.POSITIVE_INFINITY,
};

function createPino({ level, format, file }: LogOptions): Logger {
  const { pino } = createRequire(import.meta.url)('pino') as { pino: typeof Pino };
  const options = { name: 'detdrift', level, base: undefined, hooks: { streamWrite: inertJson } };
  const stderr = format === 'json' ? pino.destination({ dest: 2, sync: true }) : SENTENCES;
  if (file === null) return pino(options, stderr);
  const json = pino.destination({ dest: file, sync: true, mkdir: true });
  return pino(
    options,
    pino.multistream([
      { level, stream: stderr },
      { level, stream: json },
    ]),
  );
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

/** pino's own fields, which a sentence leaves out. */
const OWN = new Set(['level', 'time', 'name', 'msg', 'pid', 'hostname']);

/** Each JSON line pino writes, as a sentence on stderr: `detdrift: warning: MESSAGE (key: value)`. */
const SENTENCES: DestinationStream = {
  write(line: string) {
    writeSync(2, sentence(JSON.parse(line) as Record<string, unknown>));
  },
};

/**
 * `detdrift: warning: the command exited with a non-zero status (run: 2, status: 1)`, then each
 * text of several lines (a program's stderr, an error's stack) under its name, indented.
 */
export function sentence(entry: Readonly<Record<string, unknown>>): string {
  const inline: string[] = [];
  const blocks: string[] = [];
  for (const [key, value] of Object.entries(entry)) {
    if (OWN.has(key) || value === undefined) continue;
    const text =
      typeof value === 'string'
        ? value
        : typeof (value as { stack?: unknown })?.stack === 'string'
          ? (value as { stack: string }).stack
          : JSON.stringify(value);
    if (text.includes('\n'))
      blocks.push(
        `  ${key}:`,
        ...text
          .trimEnd()
          .split('\n')
          .map((row) => `    ${inert(row)}`),
      );
    else inline.push(`${key}: ${inert(text)}`);
  }
  const level = LEVELS[entry.level as number] ?? String(entry.level);
  const head = `detdrift: ${level}: ${inert(String(entry.msg ?? ''))}${inline.length > 0 ? ` (${inline.join(', ')})` : ''}`;
  return [head, ...blocks].join('\n') + '\n';
}
