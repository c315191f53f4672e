import { pino, type Logger as PinoLogger } from 'pino';
import { inertJson } from '../report/untrusted.js';
import type { LogLevel } from './defaults.js';

export type Logger = PinoLogger;

/**
 * The tool's own log, always on stderr: stdout belongs to the traced program (record) or to the
 * command's output (show --json), so a log line there would corrupt what a script reads.
 * Synchronous, so lines written just before exit are not lost. A line can carry a program's
 * stderr or a trace's strings: it is written `inertJson`, the same data, nothing for a terminal
 * or a CI runner to act on.
 */
export function createLogger(level: LogLevel): Logger {
  const options = { name: 'detdrift', level, base: undefined, hooks: { streamWrite: inertJson } };
  return pino(options, pino.destination({ dest: 2, sync: true }));
}
