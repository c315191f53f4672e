/** `detdrift check`'s options: the command, its seeds and runs, and how to report the runs' verdict. */
import { DEFAULT_DIMENSIONS, type Perturbation, parsePerturbations } from '../../instrument/perturb-dimensions.js';
import type { ShardView } from '../../report/types.js';
import type { Mode } from '../../tracer/format.js';
import { CONFIG_FILE, comparingConfig } from '../shared/config.js';
import type { IgnoreRules } from '../shared/config-schema.js';
import { DEFAULTS, type WarmupSetting } from '../shared/defaults.js';
import { CliError } from '../shared/errors.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, pathOption, usage } from '../shared/options.js';
import type { ReportTarget } from '../shared/report-options.js';
import { JSON_REPORT, NO_CONFIRM, REPORT, validateConfirm, validateReports } from '../shared/report-options.js';
import {
  MODE,
  SEED,
  SEEDS,
  validateMode,
  validateSeeds,
  validateShard,
  validateWarmup,
  WARMUP,
} from '../shared/run-options.js';

export const command: Command<CheckOptions> = {
  usage: 'detdrift check [options] -- CMD...',
  options: {
    ...SEED,
    ...SEEDS,
    runs: {
      type: 'string',
      value: 'N',
      help: 'how many runs, each later one compared with the first (2 to 100)',
      default: String(DEFAULTS.runs),
    },
    ...MODE,
    ...WARMUP,
    perturb: {
      type: 'string',
      value: '[DIM,...]',
      help: `run once plain and once per dimension another machine would vary: ${DEFAULT_DIMENSIONS.join(', ')} (bare: all)`,
    },
    out: {
      type: 'string',
      short: 'o',
      value: 'DIR',
      help: "keep the runs' traces in DIR (run-1, run-2, ...; seed-N/run-1, ... for several seeds or a shard)",
      default: 'a temporary directory',
    },
    keep: { type: 'boolean', help: 'keep the temporary traces and say where they are' },
    ...JSON_REPORT,
    ...NO_CONFIRM,
    ...REPORT,
    ...LOG,
  },
  example: 'detdrift check --seed 42 --runs 3 -- node test/sim.js',
  normalize: normalizeCheck,
  load: () => import('./run.js'),
};

export interface CheckOptions extends CommonOptions {
  /** after `--`, else the config's `command` */
  readonly command: readonly string[];
  readonly mode: Mode;
  /** the first of `seeds` */
  readonly seed: string | null;
  /**
   * `--seed` or `--seeds`, else the config's `seeds`, else no seed (this shard's share): each is checked in
   * turn until one diverges
   */
  readonly seeds: readonly (string | null)[];
  /** `--shard I/N`: which share of the seed list `seeds` is; null without the option */
  readonly shard: ShardView | null;
  /** the config's `ignore`: calls left out of the comparison */
  readonly ignore: IgnoreRules;
  /** the config's warnings (unknown keys), logged when the command runs */
  readonly configWarnings: readonly string[];
  /** at least 2: each later run is compared with the first */
  readonly runs: number;
  /**
   * `--warmup`: whether the first run is a warm-up, left out, when a runner or loader with a cache
   * (Jest, Vitest, tsx, ts-node) is at work: `auto` when the command names one or the run shows one,
   * `on` always, `off` never. Only the first seed's runs start cold. Not with `--perturb`.
   */
  readonly warmup: WarmupSetting;
  /** absolute: where the runs' traces go (`run-1`, `run-2`, ...) and stay; null: a temporary directory */
  readonly out: string | null;
  /** keep the temporary traces and say where they are */
  readonly keep: boolean;
  readonly json: boolean;
  /** confirm the cause by replay bisection (`--no-confirm` skips it) */
  readonly confirm: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
  /**
   * `--perturb [DIM,...]`: run the seed once plain (control mode) and once per perturbation (perturb
   * mode), instead of `--runs` plain runs; `all` or a bare `--perturb` tries every dimension. Null
   * without the option.
   */
  readonly perturb: readonly Perturbation[] | null;
}

function normalizeCheck(raw: RawInvocation, cwd: string): CheckOptions {
  if (raw.positionals.length > 0)
    throw usage(`check takes no arguments before "--", got ${JSON.stringify(raw.positionals)}`);
  const { config, ...configured } = comparingConfig(cwd);
  const command = raw.command !== null && raw.command.length > 0 ? raw.command : config.command;
  if (command === null) {
    throw usage(
      `check needs the command to run after "--", e.g. detdrift check --seed 42 -- node test/sim.js (or "command" in ${CONFIG_FILE})`,
    );
  }
  // --seed or --seeds wins; else the config's seeds, each checked in turn; else no seed.
  const { seeds, shard } = validateShard(
    raw.values.shard,
    validateSeeds(raw.values) ?? config.seeds ?? [DEFAULTS.seed],
  );
  if (raw.values.perturb !== undefined && (raw.values.seeds !== undefined || shard))
    throw usage('--perturb tries one seed: give it with --seed N, not --seeds or --shard');
  return Object.freeze({
    ...common(raw, cwd),
    ...configured,
    command: Object.freeze([...command]),
    mode: validateMode(raw.values.mode),
    seed: seeds[0]!,
    seeds: Object.freeze(seeds),
    shard,
    runs: validateRuns(raw.values.runs),
    warmup: validateWarmup(raw.values.warmup),
    out: pathOption(raw.values.out, cwd),
    keep: raw.values.keep === true,
    json: raw.values.json === true,
    confirm: validateConfirm(raw.values['no-confirm']),
    reports: validateReports(raw.values.report, cwd),
    perturb: validatePerturb(raw.values.perturb),
  });
}

// Each validator names the option, the value it got and the values it allows.

function validateRuns(value: unknown): number {
  if (value === undefined) return DEFAULTS.runs;
  const runs = Number(value);
  if (typeof value === 'string' && /^\d+$/.test(value) && runs >= 2 && runs <= 100) return runs;
  throw new CliError('ERR_OPTION_VALUE', `--runs got ${JSON.stringify(value)}; allowed: a whole number from 2 to 100`);
}

/** `--perturb`: `all` (also what a bare `--perturb` gives) or a comma-separated list of dimensions. */
function validatePerturb(value: unknown): Perturbation[] | null {
  if (value === undefined) return null;
  const text = String(value).trim();
  try {
    return parsePerturbations(text === 'all' ? DEFAULT_DIMENSIONS.join(',') : text);
  } catch (error) {
    throw new CliError('ERR_OPTION_VALUE', `--perturb got ${JSON.stringify(value)}: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
