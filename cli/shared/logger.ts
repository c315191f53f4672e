import { writeSync } from 'node:fs';
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';
import { inert, inertJson } from '../../report/untrusted.js';
import type { LogFormat, LogLevel } from './defaults.js';

export type Logger = PinoLogger;

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
 */
export function createLogger({ level, format, file }: LogOptions): Logger {
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
