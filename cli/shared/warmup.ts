/**
 * The warm-up run. A runner or loader with a cache (Jest's haste map, transform cache and test
 * durations; Vitest's results cache; tsx's and ts-node's compile caches) finds it cold on a fresh
 * checkout: the first run fills it, the second reads it, and the two can differ for no reason of
 * the program's (Jest orders test files by size without durations and by duration with them). So
 * when one is at work, the first run is taken as a warm-up and left out, and one more is recorded:
 * nothing more when none is, one run more when one is.
 */
import { activeRunners, CACHING_RUNNERS, type RunnerName } from '../../diffing/runners.js';
import type { WarmupView } from '../../report/types.js';
import { isEmptyTrace, TraceReader } from '../../tracer/reader.js';
import { runnersInCommand } from './command-runners.js';
import type { WarmupSetting } from './defaults.js';
import { listTraceFiles } from './traces.js';

/** The directory a warm-up run's traces are moved to, beside the compared runs' `run-1`, `run-2`, ... */
export const WARMUP_DIR = 'warmup';

/**
 * Whether the run just recorded into `trace` (the first of its tree) was a warm-up, and why: under
 * `auto`, when `command` names a caching runner, else when the run's stacks show one at work.
 */
export function warmupAfter(
  setting: WarmupSetting,
  command: readonly string[],
  cwd: string,
  trace: string,
): Omit<WarmupView, 'trees'> | null {
  if (setting === 'off') return null;
  const named = runnersInCommand(command, cwd);
  if (setting === 'on') return { runners: named, found: 'option' };
  if (named.length > 0) return { runners: named, found: 'command' };
  const seen = runnersInTraces(trace);
  return seen.length > 0 ? { runners: seen, found: 'traces' } : null;
}

/**
 * The caching runners a run's traces show at work (diffing/runners.ts, by their frames). Only the
 * header and the stacks are kept: a scan of the events, without the columns a comparison builds.
 */
function runnersInTraces(dir: string): RunnerName[] {
  const traces = listTraceFiles(dir).flatMap(({ file }) => {
    let reader: TraceReader;
    try {
      reader = TraceReader.open(file);
    } catch (error) {
      // A process that recorded nothing shows no runner; the comparison reports it as it does any empty trace.
      if (isEmptyTrace(error)) return [];
      throw error;
    }
    try {
      reader.scan({ chunk() {}, event() {} });
      return [{ header: reader.header, sites: reader.sites }];
    } finally {
      reader.close();
    }
  });
  const names = new Set(activeRunners('auto', traces).map((profile) => profile.name));
  return CACHING_RUNNERS.filter((name) => names.has(name));
}
