/**
 * `detdrift record --out DIR -- CMD...`: runs CMD with the hook in NODE_OPTIONS (so every Node
 * child and worker it starts is traced too), its stdio untouched, and exits with CMD's status.
 * What detdrift itself says goes to stderr, after CMD has ended.
 */
import { describeEnding } from '../../report/trace.js';
import { TraceError } from '../../tracer/errors.js';
import { TraceReader } from '../../tracer/reader.js';
import type { CommandContext } from '../shared/options.js';
import { recordRun } from '../shared/recording.js';
import { displayPath, listTraceFiles, prepareOutDir } from '../shared/traces.js';
import type { RecordOptions } from './options.js';

export async function run(options: RecordOptions, { logger }: CommandContext): Promise<number> {
  prepareOutDir(options.out);
  const result = await recordRun(options, 'inherit', logger);
  process.stderr.write(summarize(options.out, options.cwd));
  return result.status;
}

/** One stderr line per trace written: where it is, its event count and how it ended. */
function summarize(dir: string, cwd: string): string {
  const traces = listTraceFiles(dir);
  if (traces.length === 0) {
    return `detdrift: no trace written to ${displayPath(dir, cwd)}: was the command a Node.js process that keeps NODE_OPTIONS?\n`;
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
