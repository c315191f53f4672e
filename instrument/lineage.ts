import { join } from 'node:path';
import { getEnvironmentData, isMainThread, setEnvironmentData, threadId } from 'node:worker_threads';
import { TRACE_EXTENSION } from '../tracer/format.js';
import { real } from './real.js';

const LINEAGE_KEY = 'detdrift.lineage';

export interface Claimed {
  readonly lineage: string;
  readonly file: string;
  readonly fd: number;
}

/**
 * Names this process (or worker) by spawn lineage, not pid, so two runs name the same process the
 * same: `0` is the root, `0.2` the root's second spawned child (the parent passes the name in
 * DETDRIFT_SPAWN), `0.w1` the root's first worker thread. The trace file is created exclusively;
 * a name already taken (two roots writing to one directory) gets `~2`, `~3`, ...
 */
export function claimTraceFile(traceDir: string, spawn: string | null): Claimed {
  const wanted = isMainThread ? spawn ?? '0' : `${getEnvironmentData(LINEAGE_KEY) ?? spawn ?? '0'}.w${threadId}`;
  real.mkdirSync(traceDir, { recursive: true, mode: 0o700 });
  for (let attempt = 1; ; attempt++) {
    const lineage = attempt === 1 ? wanted : `${wanted}~${attempt}`;
    const file = join(traceDir, lineage + TRACE_EXTENSION);
    try {
      const fd = real.openSync(file, 'wx', 0o600);
      // Workers started from here read their parent's lineage from this.
      setEnvironmentData(LINEAGE_KEY, lineage);
      return { lineage, file, fd };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 1000) throw error;
    }
  }
}
