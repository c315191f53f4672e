import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { compare, type Comparison } from '../../diffing/compare.js';
import { formatPerturbation, perturbationEnv, type Perturbation } from '../../instrument/perturb-dimensions.js';
import type { Mode } from '../../tracer/format.js';
import type { PerturbationView } from '../../report/types.js';
import { TraceReader } from '../../tracer/reader.js';
import { encode } from '../../tracer/settings.js';
import type { CommandContext } from '../shared/options.js';
import { shellQuote } from '../shared/confirm.js';
import type { CheckOptions } from './options.js';
import { Progress } from '../shared/progress.js';
import { findRoot } from '../shared/project.js';
import { recordRun } from '../shared/recording.js';
import { assertRecorded } from '../shared/recorded.js';
import { emitReport, fencingCommands } from '../shared/output.js';
import { listTraceFiles, prepareOutDir } from '../shared/traces.js';
import { makeWorkDir } from '../shared/workdir.js';

type Tried = PerturbationView['tried'][number];

/**
 * `detdrift check --perturb [DIM,...] --seed N -- CMD`: records the seed once plain (control mode)
 * and once per perturbation (perturb mode: control mode, plus what another platform or machine
 * would give in that dimension), compares each perturbed run, as run A, with the plain run B, and
 * reports the first perturbation that makes them part (its first divergence and cause) with the
 * verdict of every one tried. Run A is the perturbed run because a perturbed value is recorded as
 * uncontrolled, which is what the cause rules look for. Replay does not confirm the cause here: it
 * pins clock and entropy values, and a perturbation varies something else.
 *
 * The plain run is trusted to be repeatable: `detdrift check --mode control` is what tells.
 */
export async function runPerturbed(
  options: CheckOptions,
  perturbations: readonly Perturbation[],
  { logger }: CommandContext,
): Promise<number> {
  const base = options.out ?? makeWorkDir('perturb');
  const kept = options.out !== null || options.keep;
  // The hook seeds with "0" when no seed is given; the perturbations chosen by the seed follow it.
  const seed = options.seed ?? '0';
  const progress = new Progress();
  const record = async (
    out: string,
    mode: Mode,
    env: Record<string, string | undefined>,
    name: string,
  ): Promise<string> => {
    prepareOutDir(out);
    const result = await recordRun({ ...options, out, mode }, 'pipe', logger, env);
    assertRecorded(out, result, name);
    if (result.status !== 0) {
      fencingCommands(() =>
        logger.warn(
          { out, status: result.status, stderr: result.stderr.slice(-2000) },
          'the command exited with a non-zero status',
        ),
      );
    }
    return out;
  };
  try {
    progress.phase(
      `recording ${options.command.join(' ')} plain and under ${perturbations.length} perturbation${perturbations.length === 1 ? '' : 's'} (seed ${seed})`,
    );
    progress.update('plain run');
    const plain = await record(join(base, 'plain'), 'control', {}, 'the plain run');
    const tried: Tried[] = [];
    let chosen: { comparison: Comparison; tried: Tried } | null = null;
    let last: Comparison | null = null;
    for (const perturbation of perturbations) {
      const name = formatPerturbation(perturbation);
      progress.update(`perturbed run: ${name}`);
      const env = { ...encode({ perturb: name }), ...perturbationEnv([perturbation], seed) };
      const dir = await record(
        join(base, `perturb-${name.replace(':', '-')}`),
        'perturb',
        env,
        `the run perturbed by ${name}`,
      );
      last = compare(dir, plain);
      const entry: Tried = { dimension: name, detail: detailOf(dir) ?? name, verdict: last.verdict };
      tried.push(entry);
      logger.debug({ perturbation: name, verdict: last.verdict }, 'perturbed run compared');
      if (last.verdict === 'diverge' && chosen === null) chosen = { comparison: last, tried: entry };
    }
    progress.clear();
    const perturbation: PerturbationView = {
      dimension: chosen?.tried.dimension ?? null,
      detail: chosen?.tried.detail ?? null,
      tried,
    };
    const replay = chosen ? rerunCommand(options, chosen.tried.dimension) : null;
    const root = findRoot(options.cwd);
    const { status } = await emitReport(chosen?.comparison ?? last!, root, options, {
      perturbation,
      replay,
      reports: options.reports,
    });
    if (options.out === null && options.keep) progress.phase(`traces kept in ${base}`);
    return status;
  } finally {
    if (!kept) rmSync(base, { recursive: true, force: true });
  }
}

/** What the perturbed run's root process got instead, as its trace header records it. */
function detailOf(dir: string): string | null {
  const first = listTraceFiles(dir)[0];
  if (!first) return null;
  const reader = TraceReader.open(first.file);
  try {
    return reader.header.perturb?.map((entry) => entry.detail).join('; ') || null;
  } finally {
    reader.close();
  }
}

/** The command that records this perturbation and the plain run again, and keeps the traces. */
function rerunCommand(options: CheckOptions, perturbation: string): string {
  const flags = ['--perturb', perturbation, '--keep', ...(options.seed ? ['--seed', options.seed] : [])];
  return ['npx', 'detdrift', 'check', ...flags, '--', ...options.command].map(shellQuote).join(' ');
}
