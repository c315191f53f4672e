/**
 * What a run left behind, checked before any comparison: two runs that recorded nothing "agree" on
 * nothing, so a run with no trace, or whose first process exited without ending its trace, is refused.
 */
import { TraceError } from '../../tracer/errors.js';
import { TraceReader } from '../../tracer/reader.js';
import { CliError } from './errors.js';
import type { RecordedRun } from './recording.js';
import { listTraceFiles, type TraceFile } from './traces.js';

/** The hook's own failures, one stderr line each (instrument/runtime.ts, instrument/recorder.ts). */
const HOOK_ERROR = /^detdrift: (ERR_DETDRIFT_[A-Z_]+: .*)$/gm;
/** Hook lines quoted in the error at most: the same failure in every child says the same. */
const QUOTED = 3;

/**
 * Refuses the run recorded into `out` (`name`: how the user knows it, `run 2`) when no process
 * wrote a trace (ERR_NOTHING_RECORDED), or when a first process (`0`, `0~2`) has a trace with no
 * end record although the command exited rather than being killed (ERR_UNENDED_TRACE): its exit
 * never reached the hook. Either quotes what the hook said of its own failure on the run's stderr.
 */
export function assertRecorded(out: string, run: RecordedRun, name: string): void {
  const traces = listTraceFiles(out);
  const said = hookSaid(run.stderr);
  if (!traces.some(hasHeader)) {
    const why = said
      ? `the hook could not record: ${said}`
      : 'no Node.js process ran under the hook (the command must be, or start, a Node.js process that keeps ' +
        'NODE_OPTIONS; npm, npx, pnpm and yarn only pass the hook on)';
    throw new CliError('ERR_NOTHING_RECORDED', `${name} recorded nothing (its command exited ${exited(run)}): ${why}`);
  }
  if (run.signal !== null) return; // a killed run's processes end without their records
  const unended = traces.find((trace) => !trace.lineage.includes('.') && hasHeader(trace) && !ended(trace));
  if (unended === undefined) return;
  const why = said
    ? `the hook stopped: ${said}`
    : "its exit never reached the hook (does the program's own process.emit drop 'exit'?)";
  throw new CliError(
    'ERR_UNENDED_TRACE',
    `${name}: process ${unended.lineage} exited (the command exited ${exited(run)}), but its trace has no end record: ${why}`,
  );
}

/** Whether a process wrote its trace's header: an empty file is a process stopped before its first write. */
function hasHeader({ file }: TraceFile): boolean {
  try {
    TraceReader.open(file).close();
    return true;
  } catch (error) {
    if (error instanceof TraceError && error.code === 'ERR_TRACE_EMPTY') return false;
    throw error;
  }
}

/** Whether the trace ends with its end record (told from the last chunk when the trace is whole). */
function ended({ file }: TraceFile): boolean {
  const reader = TraceReader.open(file);
  try {
    if (reader.quickEnding() !== null) return true;
    for (const _event of reader.events());
    return reader.ending.complete;
  } finally {
    reader.close();
  }
}

/** The hook's failures the run printed, distinct, joined; '' for none. */
function hookSaid(stderr: string): string {
  const lines = new Set([...stderr.matchAll(HOOK_ERROR)].map((match) => match[1]!));
  const quoted = [...lines].slice(0, QUOTED);
  const more = lines.size > QUOTED ? ` (and ${lines.size - QUOTED} more)` : '';
  return quoted.join('; ') + more;
}

function exited(run: RecordedRun): string {
  return run.signal === null ? `with status ${run.status}` : `by ${run.signal}`;
}
