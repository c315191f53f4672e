/**
 * The options of the commands that run a program under the hook: the seed it gets (`--seed`), a
 * list of them and this job's share of it (`--seeds`, `--shard`), the mode (`--mode`), and whether
 * a first run warms a runner's caches (`--warmup`).
 */
import type { ShardView } from '../../report/types.js';
import { MODES, type Mode } from '../../tracer/format.js';
import { DEFAULTS, RECORDABLE_MODES, WARMUP_SETTINGS, type WarmupSetting } from './defaults.js';
import { CliError } from './errors.js';
import { type OptionSpecs, type RawInvocation, usage } from './options.js';
import { expandSeeds, parseShard, SEED_TEXT, shareOf } from './seeds.js';

export const SEED: OptionSpecs = {
  seed: {
    type: 'string',
    value: 'N',
    help: 'the seed the program gets, decimal (42) or hexadecimal (0x2a)',
    default: 'none',
  },
};

/** check, bump: a seed list instead of --seed, and this job's shard of it */
export const SEEDS: OptionSpecs = {
  seeds: {
    type: 'string',
    value: 'LIST',
    help: 'seeds to check in turn until one diverges: 1..1000, 1,5,9 or 1..10,42 (ranges decimal); not with --seed',
  },
  shard: {
    type: 'string',
    value: 'I/N',
    help: 'check only the I-th of N contiguous shares of the seeds (a CI matrix job); detdrift merge joins the reports',
  },
};

export const MODE: OptionSpecs = {
  mode: {
    type: 'string',
    value: 'MODE',
    help: `${RECORDABLE_MODES.join(' (record what the program draws) or ')} (feed it seeded values)`,
    default: DEFAULTS.mode,
  },
};

/** check, bump */
export const WARMUP: OptionSpecs = {
  warmup: {
    type: 'string',
    value: 'WHEN',
    help: 'auto (a first run, not compared, fills the caches of jest, vitest, tsx or ts-node when the command names one or the run shows one), on (always), off (never)',
    default: DEFAULTS.warmup,
  },
};

// Each validator names the option, the value it got and the values it allows.

export function validateMode(value: unknown, fallback: Mode = DEFAULTS.mode): Mode {
  if (value === undefined) return fallback;
  if (RECORDABLE_MODES.includes(value as Mode)) return value as Mode;
  const planned =
    value === 'replay'
      ? '; replay runs through "detdrift replay TRACE -- CMD"'
      : value === 'perturb'
        ? '; perturb runs through "detdrift check --perturb [DIM,...] -- CMD"'
        : MODES.includes(value as Mode)
          ? `; ${JSON.stringify(value)} is planned but not available in this version`
          : '';
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--mode got ${JSON.stringify(value)}; allowed: ${RECORDABLE_MODES.join(', ')}${planned}`,
  );
}

export function validateWarmup(value: unknown): WarmupSetting {
  if (value === undefined) return DEFAULTS.warmup;
  if (WARMUP_SETTINGS.includes(value as WarmupSetting)) return value as WarmupSetting;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--warmup got ${JSON.stringify(value)}; allowed: ${WARMUP_SETTINGS.join(', ')}`,
  );
}

export function validateSeed(value: unknown): string | null {
  if (value === undefined) return DEFAULTS.seed;
  if (typeof value === 'string' && SEED_TEXT.test(value)) return value;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--seed got ${JSON.stringify(value)}; allowed: a non-negative integer, decimal (42) or hexadecimal (0x2a)`,
  );
}

/**
 * `--seed N` (bump: repeatable) or `--seeds LIST` (`1..1000`, `1,5,9`, `1..10,42`), not both; null when
 * neither is given.
 */
export function validateSeeds({ seed, seeds }: RawInvocation['values']): string[] | null {
  if (seed !== undefined && seeds !== undefined) throw usage('give --seed or --seeds, not both');
  if (seed !== undefined) return ([] as unknown[]).concat(seed).map((each) => validateSeed(each)!);
  if (seeds === undefined) return null;
  const { seeds: expanded, problem } = expandSeeds(String(seeds).split(','));
  if (problem === null) return [...expanded];
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--seeds got ${JSON.stringify(seeds)}: ${problem}; allowed: seeds and ranges of decimal seeds, comma-separated (1..1000, 1,5,9, 1..10,42)`,
  );
}

/**
 * `--shard I/N`: this run's share of `seeds` (cli/shared/seeds.ts), where each of the N shares gets a seed at
 * least.
 */
export function validateShard(
  value: unknown,
  seeds: readonly (string | null)[],
): { seeds: readonly (string | null)[]; shard: ShardView | null } {
  if (value === undefined) return { seeds, shard: null };
  const shard = parseShard(String(value));
  if (!shard)
    throw new CliError(
      'ERR_OPTION_VALUE',
      `--shard got ${JSON.stringify(value)}; allowed: I/N, the I-th of N shares of the seeds (1 <= I <= N), e.g. 3/8`,
    );
  if (seeds[0] === null) throw usage('--shard needs seeds to share out: give --seeds');
  if (shard.total > seeds.length) {
    throw new CliError(
      'ERR_OPTION_VALUE',
      `--shard got ${JSON.stringify(value)}: ${seeds.length} seeds cannot fill ${shard.total} shards; allowed: at most ${seeds.length} shards`,
    );
  }
  return { seeds: shareOf(seeds, shard), shard: { ...shard, seeds: seeds.length } };
}
