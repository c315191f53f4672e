import { renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { confirmedCause } from '../../diffing/cause.js';
import { compare, type CompareOptions, type Comparison } from '../../diffing/compare.js';
import { encode } from '../../tracer/settings.js';
import type { CommandContext } from '../shared/options.js';
import { checkCommand, confirmByReplay, replayCommand } from '../shared/confirm.js';
import type { CheckOptions } from './options.js';
import { Progress } from '../shared/progress.js';
import { findRoot } from '../shared/project.js';
import { recordRun } from '../shared/recording.js';
import { assertRecorded } from '../shared/recorded.js';
import { displayPath } from '../shared/traces.js';
import type { AttemptView, FailureView, SeedView, WarmupView } from '../../report/types.js';
import { emitReport } from '../shared/output.js';
import { ExitStatus } from '../shared/errors.js';
import { stopOnInterrupt } from '../shared/interrupt.js';
import { prepareOutDir } from '../shared/traces.js';
import { lockOutDir } from '../shared/out-lock.js';
import { briefCause, describeShare, seedList, seedView } from '../shared/seeds.js';
import { runPerturbed } from './perturb.js';
import { CauseStacks, settleUnsampled, type Rerunnable } from '../shared/stacks.js';
import { makeWorkDir } from '../shared/workdir.js';
import { describeWarmup } from '../../report/describe.js';
import { WARMUP_DIR, warmupAfter } from '../shared/warmup.js';

/**
 * `detdrift check --seed N -- CMD`: runs CMD `--runs` times with the same seed, compares each
 * later run with the first, confirms the cause of a divergence by replay, and reports.
 * The traces live in `--out` (kept) or a temporary directory (deleted unless `--keep`): when
 * confirming they hold raw crypto values, which can be secrets.
 */
export async function run(options: CheckOptions, { logger }: CommandContext): Promise<number> {
  for (const warning of options.configWarnings) logger.warn(warning);
  if (options.out !== null) lockOutDir(options.out);
  // `--perturb`: one plain run and one per perturbation instead of `--runs` plain runs (cli/check/perturb.ts).
  if (options.perturb) return runPerturbed(options, options.perturb, { logger });
  stopOnInterrupt();
  const base = options.out ?? makeWorkDir('check');
  const kept = options.out !== null || options.keep;
  const progress = new Progress();
  try {
    // The seeds are checked in turn: the report is about the first that diverges, or the last.
    if (options.shard) progress.phase(describeShare(options.shard, options.seeds));
    let checked: Checked | null = null;
    let firstWarmup: WarmupView | null = null;
    const seeds: SeedView[] = [];
    for (const [index, seed] of options.seeds.entries()) {
      // A shard's traces are always by seed, so that every shard's artifact has one layout.
      const dir = options.seeds.length === 1 && !options.shard ? base : join(base, `seed-${seed ?? 'none'}`);
      // Only the first seed's first run can find the caches cold: it warms them for every later one.
      const seeded = { ...options, seed, warmup: index === 0 ? options.warmup : 'off' } as const;
      checked = await recordAndCompare(seeded, dir, progress, logger);
      firstWarmup ??= checked.warmup;
      seeds.push(seedView(seed, checked.comparison));
      if (checked.comparison.verdict === 'diverge') break;
    }
    const { seeded, dirs, against, comparison, attempts, failure } = checked!;
    // A blamed call whose stack was not sampled gets it from a replay: a probe of the confirmation, or a run
    // of its own.
    const stacks = new CauseStacks(comparison, logger);
    const confirmation = options.confirm
      ? await confirmByReplay({
          traceA: dirs[0]!,
          comparison,
          command: options.command,
          cwd: options.cwd,
          seed: seeded.seed,
          progress,
          logger,
          stacks,
        })
      : null;
    if (comparison.diverging) {
      const sides = { a: rerunnable(seeded, dirs[0]!), b: rerunnable(seeded, against) };
      await stacks.forCause(confirmedCause(comparison.diverging, confirmation).cause, sides, progress);
    }
    // Relative to where check ran, as the command is: a CI artifact downloaded into a checkout replays as it reads.
    const replay = kept ? replayCommand(displayPath(dirs[0]!, options.cwd), options.command) : rerunCommand(seeded);
    const { status } = await emitReport(comparison, findRoot(options.cwd), options, {
      confirmation,
      replay,
      reports: options.reports,
      stacks: stacks.list(),
      attempts: attempts.length > 1 ? attempts : null,
      failure,
      seeds: seedList(options.seeds, seeds, options.shard),
      shard: options.shard,
      warmup: firstWarmup,
    });
    if (options.out === null && options.keep) progress.phase(`traces kept in ${base}`);
    // Runs that agree in failing every time are no check: CI must not read them as a pass.
    return status === ExitStatus.ok && failure?.statuses.every((code) => code !== 0) ? ExitStatus.usage : status;
  } finally {
    if (!kept) rmSync(base, { recursive: true, force: true });
  }
}

interface Checked {
  /** the options with the seed these runs had */
  readonly seeded: CheckOptions;
  readonly dirs: readonly string[];
  /** the run compared with the first: the first that diverged from it, or the last */
  readonly against: string;
  readonly comparison: Comparison;
  /** each later run compared with the first: its number, and the cause when it diverged */
  readonly attempts: readonly AttemptView[];
  /** the runs' statuses and the first failing run's stderr, when the command failed in any */
  readonly failure: FailureView | null;
  /** the first run, when it was a warm-up (moved to `warmup/`, left out), and why */
  readonly warmup: WarmupView | null;
}

/** Records `--runs` runs of one seed into `base` (`run-1`, `run-2`, ...) and compares each later one with the first. */
async function recordAndCompare(
  options: CheckOptions,
  base: string,
  progress: Progress,
  logger: CommandContext['logger'],
): Promise<Checked> {
  progress.phase(
    `recording ${options.runs} runs of ${options.command.join(' ')} (${options.mode} mode, seed ${options.seed ?? 'none'})`,
  );
  const hold = encode(options.confirm ? { hold: true } : {});
  const record = async (index: number) => {
    progress.step(`recording run ${index} of ${options.runs}`, index - 1, options.runs);
    const out = join(base, `run-${index}`);
    prepareOutDir(out);
    const recorded = await recordRun({ ...options, out }, 'pipe', logger, hold);
    assertRecorded(out, recorded, options.seeds.length > 1 ? `run ${index} of seed ${options.seed}` : `run ${index}`);
    return { out, ...recorded };
  };
  const runs = [await record(1)];
  const warmup = warmupAfter(options.warmup, options.command, options.cwd, runs[0]!.out);
  if (warmup) {
    // The run filled the caches: it is set aside, and the compared runs start again at run 1.
    progress.phase(`run 1 was a warm-up: ${describeWarmup(warmup)}`);
    moveAside(runs[0]!.out, join(base, WARMUP_DIR));
    runs[0] = await record(1);
  }
  for (let index = 2; index <= options.runs; index++) runs.push(await record(index));
  const dirs = runs.map((run) => run.out);
  const statuses = runs.map((run) => run.status);
  const failed = runs.find((run) => run.status !== 0);
  const stderr = failed ? stderrExcerpt(failed.stderr) : null;
  progress.clear();
  let comparison: Comparison | null = null;
  let against = dirs[0]!;
  const attempts: AttemptView[] = [];
  const root = findRoot(options.cwd);
  for (const [index, later] of dirs.slice(1).entries()) {
    const compareWith = (taken?: CompareOptions['taken']) =>
      compare(dirs[0]!, later, { ignore: options.ignore, taken, sources: { a: root, b: root } });
    const sides = { a: rerunnable(options, dirs[0]!), b: rerunnable(options, later) };
    const next = await settleUnsampled(compareWith(), compareWith, sides, options.ignore, progress, logger);
    attempts.push({ run: index + 2, cause: next.diverging ? briefCause(next) : null });
    // The first run that diverges is the one reported; runs that all agree are reported by one
    // that ran in another order, if one did: how they differ.
    if (
      comparison === null ||
      (comparison.verdict === 'agree' && (next.verdict === 'diverge' || !reordered(comparison)))
    ) {
      comparison = next;
      against = later;
    }
  }
  return {
    seeded: options,
    dirs,
    against,
    comparison: comparison!,
    attempts,
    failure: stderr === null ? null : { statuses, stderr },
    warmup,
  };
}

/** Moves a warm-up's traces to `to` (a trace directory of an earlier check is replaced). */
function moveAside(from: string, to: string): void {
  prepareOutDir(to);
  rmSync(to, { recursive: true });
  renameSync(from, to);
}

/** How much of a failing run's stderr the report keeps. */
const STDERR_LINES = 12;
/** A line that names an error (`Error: Cannot find module`, `TypeError: ...`), not a frame under it. */
const ERROR_LINE = /^[\w$.]*(Error|Exception)\b/;

/**
 * The end of a failing run's stderr, where the error usually is, and the line that names the error
 * when a long stack pushed it out of the end: `Error: Cannot find module`, then `…`, then the end.
 */
function stderrExcerpt(stderr: string): string[] {
  const lines = stderr.trimEnd().split(/\r?\n/);
  const end = lines.slice(-STDERR_LINES);
  const named = lines.findLastIndex((line) => ERROR_LINE.test(line));
  return named >= 0 && named < lines.length - STDERR_LINES ? [lines[named]!, '…', ...end] : end;
}

/** A recorded run of this check, as a replay runs it again. */
function rerunnable(options: CheckOptions, trace: string): Rerunnable {
  return { trace, command: options.command, cwd: options.cwd, seed: options.seed };
}

function reordered(comparison: Comparison): boolean {
  return comparison.processes.some((process) => process.alignment?.ordering);
}

/** The traces are gone after this check: the command that records them again and keeps them. */
function rerunCommand(options: CheckOptions): string {
  return checkCommand(options, options.command);
}
