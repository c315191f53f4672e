import { rmSync } from 'node:fs';
import { compare } from '../diffing/compare.js';
import { sameOutputs } from '../diffing/outputs.js';
import { TraceReader } from '../tracer/reader.js';
import { encode } from '../tracer/settings.js';
import type { CommandContext } from './args.js';
import type { ReplayOptions } from './options.js';
import { findProject } from './project.js';
import { recordRun } from './record.js';
import { emitReport } from './output.js';
import { ExitStatus } from './errors.js';
import { prepareOutDir, recordedTraces } from './traces.js';
import { makeWorkDir } from './workdir.js';
import { stopOnInterrupt } from './interrupt.js';

/**
 * `detdrift replay TRACE -- CMD`: runs CMD with every recorded clock, random and crypto value of
 * TRACE fed back, records the run, and reports whether it reproduced TRACE's outputs (exit 0) or
 * where it parted from it (exit 1). The first call that did not match the recording is in the
 * new trace as a `replay` event.
 */
export async function run(options: ReplayOptions, { logger }: CommandContext): Promise<number> {
  const reader = TraceReader.open(recordedTraces(options.trace)[0]!.file);
  const seed = reader.header.seed;
  reader.close();
  stopOnInterrupt();
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
    await emitReport(comparison, findProject(options.cwd).root, options.json);
    return reproduced ? ExitStatus.ok : ExitStatus.divergence;
  } finally {
    if (options.out === null) rmSync(out, { recursive: true, force: true });
  }
}
