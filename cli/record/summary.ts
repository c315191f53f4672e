/** What `record` says once CMD has ended: where each trace is and how it ended. */
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describeEnding } from '../../report/trace.js';
import { TraceError } from '../../tracer/errors.js';
import { TraceReader } from '../../tracer/reader.js';
import { displayPath, listTraceFiles } from '../shared/traces.js';

/** One stderr line per trace written: where it is, its event count and how it ended. */
export function summarize(dir: string, cwd: string): string {
  const traces = listTraceFiles(dir);
  if (traces.length === 0) {
    if (diskFull(dir)) return `detdrift: no trace written to ${displayPath(dir, cwd)}${FULL_NOTE}\n`;
    return (
      `detdrift: no trace written to ${displayPath(dir, cwd)}: was the command a Node.js process that keeps NODE_OPTIONS? ` +
      '(npm, npx, pnpm and yarn are launchers: only the Node.js processes they start are traced)\n'
    );
  }
  return traces.map(({ file }) => `detdrift: ${displayPath(file, cwd)}: ${readEnding(file)}\n`).join('');
}

function readEnding(file: string): string {
  let reader: TraceReader | undefined;
  try {
    reader = TraceReader.open(file);
    // a trace that ended well is told from its end record: decoding a million events costs the
    // run half a second more
    const quick = reader.quickEnding();
    if (quick !== null) return describeEnding(quick);
    for (const _event of reader.events());
    return describeEnding(reader.ending) + (reader.ending.complete ? '' : diskNote(file));
  } catch (error) {
    // A trace the reader refuses is reported, not fatal: CMD's status still decides ours.
    if (error instanceof TraceError) return `${error.code}: ${error.message}`;
    throw error;
  } finally {
    reader?.close();
  }
}

/** Less room than this left beside a trace cut short: the writer's last chunk (up to a megabyte) did not fit. */
const FULL = 2 ** 20;

/** What record adds where a disk with no room left, not a kill, cut the trace or kept it from being made. */
const FULL_NOTE =
  '; ERR_TRACE_WRITE: the disk holding it has less than 1 MiB free: a full disk stopped the trace, not the run';

/** record's own stdio is the program's: the hook's ERR_DETDRIFT_WRITE line above is all it could say. */
function diskNote(file: string): string {
  return diskFull(dirname(file)) ? FULL_NOTE : '';
}

function diskFull(dir: string): boolean {
  const { bavail, bsize } = statfsSync(dir);
  return bavail * bsize < FULL;
}
