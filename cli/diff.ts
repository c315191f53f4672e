import { statSync } from 'node:fs';
import { compare } from '../diffing/compare.js';
import type { CommandContext } from './args.js';
import { CliError } from './errors.js';
import type { DiffOptions } from './options.js';
import { findProject } from './project.js';
import { emitReport } from './report-output.js';
import { listTraceFiles } from './traces.js';

/** `detdrift diff A B`: where two recorded runs part, and the call that made them. */
export async function run(options: DiffOptions, { logger }: CommandContext): Promise<number> {
  for (const path of [options.a, options.b]) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) throw new CliError('ERR_NO_TRACES', `no trace at ${path}`);
    // Two empty directories would otherwise "agree": there is nothing to compare.
    if (stats.isDirectory() && listTraceFiles(path).length === 0) throw new CliError('ERR_NO_TRACES', `${path} holds no trace file (*.ddtrace)`);
  }
  const comparison = compare(options.a, options.b);
  logger.debug({ processes: comparison.processes.length, verdict: comparison.verdict }, 'compared');
  return (await emitReport(comparison, findProject(options.cwd).root, options.json)).status;
}
