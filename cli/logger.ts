import { pino, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './defaults.js';

export type Logger = PinoLogger;

/**
 * The tool's own log, always on stderr: stdout belongs to the traced program (record) or to the
 * command's output (show --json), so a log line there would corrupt what a script reads.
 * Synchronous, so lines written just before exit are not lost.
 */
export function createLogger(level: LogLevel): Logger {
  return pino({ name: 'detdrift', level, base: undefined }, pino.destination({ dest: 2, sync: true }));
}
