/**
 * `detdrift show TRACE [--json]`: every event of a trace, one line each, on stdout; how the trace
 * ended on stderr. A directory shows each of its traces in lineage order, each after a heading.
 * The reader streams, so a trace of any length shows in bounded memory; a trace it refuses ends
 * the command with the reader's coded error (file and byte offset), after the events before it.
 * Damage the reader reads past is told with how the trace ended. An empty file in a directory is
 * a trace that recorded nothing; given alone, it is refused (ERR_TRACE_EMPTY).
 * Sites show at their original source positions where a source map gives them (diffing/source-maps/).
 */
import { statSync } from 'node:fs';
import { OriginalFrames } from '../../diffing/source-maps/original.js';
import { describeEnding, EMPTY_ENDING, eventJson, eventLine, headingJson, headingLine } from '../../report/trace.js';
import { jsonText } from '../../report/untrusted.js';
import type { Frame } from '../../tracer/format.js';
import { isEmptyTrace, TraceReader } from '../../tracer/reader.js';
import { CliError } from '../shared/errors.js';
import type { CommandContext } from '../shared/options.js';
import { LineOutput } from '../shared/output.js';
import { findRoot } from '../shared/project.js';
import { displayPath, listTraceFiles } from '../shared/traces.js';
import type { ShowOptions } from './options.js';

export async function run(options: ShowOptions, { logger }: CommandContext): Promise<number> {
  const isDirectory = statSync(options.trace, { throwIfNoEntry: false })?.isDirectory() ?? false;
  const files = isDirectory ? listTraceFiles(options.trace).map((trace) => trace.file) : [options.trace];
  if (files.length === 0) throw new CliError('ERR_NO_TRACES', `${options.trace} holds no trace file (*.ddtrace)`);
  const out = new LineOutput(process.stdout);
  const root = findRoot(options.cwd);
  for (const file of files) {
    if (out.closed) break;
    const display = displayPath(file, options.cwd);
    const reader = isDirectory ? openListed(file) : TraceReader.open(file);
    if (reader === null) {
      process.stderr.write(`detdrift: ${display}: ${EMPTY_ENDING}\n`);
      continue;
    }
    logger.debug({ file, header: reader.header }, 'showing');
    // the maps the trace holds are defined before the sites that need them, so they fill in as it streams
    const originals = new OriginalFrames(root, reader.sources);
    const shown = (frame: Frame) => originals.frame(frame);
    try {
      const { header } = reader;
      if (isDirectory) out.line(options.json ? jsonText(headingJson(display, header)) : headingLine(display, header));
      for (const event of reader.events()) {
        const line = options.json
          ? jsonText(eventJson(event, reader.sites, shown))
          : eventLine(event, reader.sites, shown);
        if (out.line(line)) await out.flush();
        if (out.closed) break;
      }
    } finally {
      // The events read so far go out before the error or summary that follows them.
      await out.flush();
      reader.close();
    }
    if (!out.closed) process.stderr.write(`detdrift: ${display}: ${describeEnding(reader.ending)}\n`);
  }
  return 0;
}

/** A trace of a directory; null for an empty one, which a run killed before its first write leaves. */
function openListed(file: string): TraceReader | null {
  try {
    return TraceReader.open(file);
  } catch (error) {
    if (isEmptyTrace(error)) return null;
    throw error;
  }
}
