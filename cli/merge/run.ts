import { lstatSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { CommandContext } from '../shared/options.js';
import { CliError } from '../shared/errors.js';
import { mergedStatus, mergeReports } from './reports.js';
import type { MergeOptions } from './options.js';
import { findRoot } from '../shared/project.js';
import { readReport } from '../shared/report-file.js';
import { withReplay } from '../shared/report-replay.js';
import { printReport } from '../shared/output.js';

/**
 * `detdrift merge REPORT.json... | DIR...`: combines the reports that the shards of one seed list
 * wrote (`check --seeds LIST --shard I/N --report json=FILE`, bump alike), read from the files
 * given and every `*.json` below each directory given (where a CI job downloads the shards'
 * artifacts), into the report one run over every seed gives (cli/merge/reports.ts), and prints
 * and writes it as `check` does. Exits as `check` would have: 1 when a seed diverged. The reports are
 * untrusted (a shard's job runs the dependency under test): the replay command is made from the
 * command after `--`, never taken from them (cli/shared/report-replay.ts).
 */
export async function run(options: MergeOptions, { logger }: CommandContext): Promise<number> {
  // A file named twice (itself and in its directory) is one report.
  const files = [...new Set(options.inputs.flatMap(reportFiles))];
  const merged = withReplay(mergeReports(files.map((file) => ({ file, report: readReport(file) }))), options.command);
  logger.debug({ reports: files.length, seeds: merged.seeds?.length }, 'merged');
  await printReport(merged, findRoot(options.cwd), options, options.reports);
  return mergedStatus(merged);
}

/** A file as given; a directory's `*.json` files at any depth, in path order. */
function reportFiles(path: string): string[] {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats) throw new CliError('ERR_REPORT_FILE', `no report at ${path}`);
  if (!stats.isDirectory()) return [path];
  const found = readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => join(path, name))
    // Not only regular files: a link or a FIFO named *.json is refused by readReport, not passed over.
    .filter((file) => !lstatSync(file).isDirectory());
  if (found.length === 0) throw new CliError('ERR_REPORT_FILE', `${path} holds no *.json report`);
  return found;
}
