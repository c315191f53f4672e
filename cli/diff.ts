import { existsSync } from 'node:fs';
import { compare } from '../diffing/compare.js';
import type { CommandContext } from './args.js';
import { CliError } from './errors.js';
import type { DiffOptions } from './options.js';
import { findProject } from './project.js';
import { emitReport } from './report-output.js';

/** `detdrift diff A B`: where two recorded runs part, and the call that made them. */
export async function run(options: DiffOptions, { logger }: CommandContext): Promise<number> {
  for (const path of [options.a, options.b]) {
    if (!existsSync(path)) throw new CliError('ERR_NO_TRACES', `no trace at ${path}`);
  }
  const comparison = compare(options.a, options.b);
  logger.debug({ processes: comparison.processes.length, verdict: comparison.verdict }, 'compared');
  return (await emitReport(comparison, findProject(options.cwd).root, options.json)).status;
}
