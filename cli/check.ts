import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, type Comparison } from '../diffing/compare.js';
import type { CommandContext } from './args.js';
import type { CheckOptions } from './options.js';
import { findProject } from './project.js';
import { recordRun } from './record.js';
import { emitReport } from './report-output.js';
import { prepareOutDir } from './traces.js';

/**
 * `detdrift check --seed N -- CMD`: runs CMD `--runs` times with the same seed, compares each
 * later run with the first, and reports the first that diverges (or that they all agree).
 * The traces live in `--out` (kept) or a temporary directory (deleted unless `--keep`).
 */
export async function run(options: CheckOptions, { logger }: CommandContext): Promise<number> {
  const base = options.out ?? mkdtempSync(join(tmpdir(), 'detdrift-check-'));
  try {
    const dirs: string[] = [];
    for (let index = 1; index <= options.runs; index++) {
      const out = join(base, `run-${index}`);
      prepareOutDir(out);
      const result = await recordRun({ ...options, out }, 'pipe', logger);
      logger.info({ run: index, status: result.status }, 'recorded');
      if (result.status !== 0) logger.warn({ run: index, status: result.status, stderr: result.stderr.slice(-2000) }, 'the command exited with a non-zero status');
      dirs.push(out);
    }
    let comparison: Comparison | null = null;
    for (const later of dirs.slice(1)) {
      comparison = compare(dirs[0]!, later);
      if (comparison.verdict === 'diverge') break;
    }
    const { status } = await emitReport(comparison!, findProject(options.cwd).root, options.json);
    if (options.out === null && options.keep) process.stderr.write(`detdrift: traces kept in ${base}\n`);
    return status;
  } finally {
    if (options.out === null && !options.keep) rmSync(base, { recursive: true, force: true });
  }
}
