import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compare, type Comparison } from '../diffing/compare.js';
import type { CommandContext } from './args.js';
import { confirmByReplay, replayCommand, shellQuote } from './confirm.js';
import type { CheckOptions } from './options.js';
import { Progress } from './progress.js';
import { findProject } from './project.js';
import { recordRun } from './record.js';
import { emitReport } from './report-output.js';
import { prepareOutDir } from './traces.js';

/**
 * `detdrift check --seed N -- CMD`: runs CMD `--runs` times with the same seed, compares each
 * later run with the first, confirms the cause of a divergence by replay, and reports.
 * The traces live in `--out` (kept) or a temporary directory (deleted unless `--keep`): when
 * confirming they hold raw crypto values, which can be secrets.
 */
export async function run(options: CheckOptions, { logger }: CommandContext): Promise<number> {
  const base = options.out ?? mkdtempSync(join(tmpdir(), 'detdrift-check-'));
  const kept = options.out !== null || options.keep;
  const progress = new Progress();
  try {
    progress.phase(`recording ${options.runs} runs of ${options.command.join(' ')} (${options.mode} mode, seed ${options.seed ?? 'none'})`);
    const hold: Record<string, string> = options.confirm ? { DETDRIFT_HOLD: 'bytes' } : {};
    const dirs: string[] = [];
    for (let index = 1; index <= options.runs; index++) {
      progress.update(`run ${index} of ${options.runs}`);
      const out = join(base, `run-${index}`);
      prepareOutDir(out);
      const result = await recordRun({ ...options, out }, 'pipe', logger, hold);
      if (result.status !== 0) logger.warn({ run: index, status: result.status, stderr: result.stderr.slice(-2000) }, 'the command exited with a non-zero status');
      dirs.push(out);
    }
    progress.clear();
    let comparison: Comparison | null = null;
    for (const later of dirs.slice(1)) {
      comparison = compare(dirs[0]!, later);
      if (comparison.verdict === 'diverge') break;
    }
    const confirmation = options.confirm
      ? await confirmByReplay({ traceA: dirs[0]!, comparison: comparison!, command: options.command, cwd: options.cwd, seed: options.seed, progress, logger })
      : null;
    const replay = kept ? replayCommand(dirs[0]!, options.command) : rerunCommand(options);
    const { status } = await emitReport(comparison!, findProject(options.cwd).root, options.json, { confirmation, replay });
    if (options.out === null && options.keep) progress.phase(`traces kept in ${base}`);
    return status;
  } finally {
    if (!kept) rmSync(base, { recursive: true, force: true });
  }
}

/** The traces are gone after this check: the command that records them again and keeps them. */
function rerunCommand(options: CheckOptions): string {
  const flags = ['--keep', '--mode', options.mode, '--runs', String(options.runs), ...(options.seed ? ['--seed', options.seed] : [])];
  return ['npx', 'detdrift', 'check', ...flags, '--', ...options.command].map(shellQuote).join(' ');
}
