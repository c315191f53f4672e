/**
 * `detdrift replay TRACE -- CMD`: runs CMD with every recorded clock, random and crypto value of
 * TRACE fed back, records the run, and reports whether it reproduced TRACE's outputs (exit 0) or
 * where it parted from it (exit 1). The first call that did not match the recording is in the
 * new trace as a `replay` event.
 */
import { rmSync } from 'node:fs';
import { compare } from '../../diffing/compare.js';
import { sameOutputs } from '../../diffing/outputs.js';
import { TraceReader } from '../../tracer/reader.js';
import { encode } from '../../tracer/settings.js';
import { ExitStatus } from '../shared/errors.js';
import { stopOnInterrupt } from '../shared/interrupt.js';
import type { CommandContext } from '../shared/options.js';
import { emitReport } from '../shared/output.js';
import { findRoot } from '../shared/project.js';
import { recordRun } from '../shared/recording.js';
import { lockOutDir } from '../shared/out-lock.js';
import { prepareOutDir, recordedTraces } from '../shared/traces.js';
import { makeWorkDir } from '../shared/workdir.js';
import type { ReplayOptions } from './options.js';

export async function run(options: ReplayOptions, { logger }: CommandContext): Promise<number> {
  const reader = TraceReader.open(recordedTraces(options.trace)[0]!.file);
  const seed = reader.header.seed;
  reader.close();
  stopOnInterrupt();
  if (options.out !== null) lockOutDir(options.out);
  const out = options.out ?? makeWorkDir('replayed');
  try {
    prepareOutDir(out);
    await recordRun(
      { out, mode: 'replay', seed, command: options.command, cwd: options.cwd },
      'pipe',
      logger,
      encode({ replay: options.trace }),
    );
    const comparison = compare(options.trace, out, { codeChanged: false });
    const reproduced = sameOutputs(options.trace, out, null, comparison.runners);
    await emitReport(comparison, findRoot(options.cwd), options);
    return reproduced ? ExitStatus.ok : ExitStatus.divergence;
  } finally {
    if (options.out === null) rmSync(out, { recursive: true, force: true });
  }
}
