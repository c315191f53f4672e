import { Tag } from '../tracer/format.js';
import type { Chunk, TraceEvent, TraceValue } from '../tracer/reader.js';
import { normalizePath, type PathContext } from './paths.js';

/**
 * Values that tell machines apart and nothing else: every runner of a CI matrix has its own host
 * name, CPU count, pid and checkout times. Across machines they are expected to differ, as clocks
 * are in observe mode, so they compare as these placeholders. Whether a program's output depends
 * on one of them is what `detdrift check --perturb hostname,cpus` finds on one machine.
 */
const MACHINE_VALUES: Readonly<Record<string, string>> = Object.freeze({
  'os.hostname': '<hostname>',
  'os.cpus': '<cpus>',
  'process.pid': '<pid>',
  'fs.stat': '<mtime>',
});

/**
 * An event's value as it compares across platforms and machines:
 *
 * - host identity and stat times: a placeholder (MACHINE_VALUES);
 * - `os.tmpdir()`: a normalized path (`<tmp>`);
 * - directory entries: `/` separators in the names of recursive listings (Windows writes `sub\x.txt`);
 *   their order is left alone, since an order that differs is what a matrix is there to find;
 * - outputs: the digest and the head with `\r\n` read as `\n`. The hook digests text with every
 *   `\r\n` counted as `\n` (recorder.ts), so a program printing `os.EOL` digests the same on Windows
 *   and Linux; the byte length, which counts the `\r`, is left out. A written file's head is its
 *   path, normalized.
 */
export function comparableValue(event: TraceEvent, context: PathContext): TraceValue {
  const value = event.value;
  if (value === null) return null;
  const placeholder = MACHINE_VALUES[event.api];
  if (placeholder !== undefined) return placeholder;
  if (event.api === 'os.tmpdir' && typeof value === 'string') return normalizePath(value, context);
  if (event.family === 'fs' && event.tag === Tag.list)
    return (value as readonly string[]).map((name) => context.platform.portable(name));
  if (event.family === 'fs' && event.tag === Tag.string) return context.platform.portable(value as string);
  if (event.tag === Tag.chunk) {
    const { digest, head } = value as Chunk;
    const shown = event.api === 'fs.writeFile' ? normalizePath(head, context) : lineEndings(head);
    return `${digest} ${shown}`;
  }
  return value;
}

/** Text with `\r\n` read as `\n`; a head cut between the two loses its `\r` too. */
function lineEndings(text: string): string {
  return text.replaceAll('\r\n', '\n').replace(/\r$/, '');
}
