/** What `record` says once CMD has ended: where each trace is and how it ended. */
import { describeEnding } from '../../report/trace.js';
import { TraceError } from '../../tracer/errors.js';
import { TraceReader } from '../../tracer/reader.js';
import { displayPath, listTraceFiles } from '../shared/traces.js';

/** One stderr line per trace written: where it is, its event count and how it ended. */
export function summarize(dir: string, cwd: string): string {
  const traces = listTraceFiles(dir);
  if (traces.length === 0) {
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
    return describeEnding(reader.ending);
  } catch (error) {
    // A trace the reader refuses is reported, not fatal: CMD's status still decides ours.
    if (error instanceof TraceError) return `${error.code}: ${error.message}`;
    throw error;
  } finally {
    reader?.close();
  }
}
