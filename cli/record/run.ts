/**
 * `detdrift record --out DIR -- CMD...`: runs CMD with the hook in NODE_OPTIONS (so every Node
 * child and worker it starts is traced too), its stdio untouched, and exits with CMD's status.
 * What detdrift itself says goes to stderr, after CMD has ended.
 */
import type { CommandContext } from '../shared/options.js';
import { recordRun } from '../shared/recording.js';
import { lockOutDir } from '../shared/out-lock.js';
import { prepareOutDir } from '../shared/traces.js';
import type { RecordOptions } from './options.js';

export async function run(options: RecordOptions, { logger }: CommandContext): Promise<number> {
  lockOutDir(options.out);
  prepareOutDir(options.out);
  // The summary's code (the trace reader) loads once CMD has started, while it runs: loaded with
  // this module, it held CMD's start back by a few milliseconds.
  const [result, { summarize }] = await Promise.all([recordRun(options, 'inherit', logger), import('./summary.js')]);
  process.stderr.write(summarize(options.out, options.cwd));
  return result.status;
}
