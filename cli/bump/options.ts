/** `detdrift bump`'s options: the two refs, the seeds to try, how to install, and how to report. */
import type { ShardView } from '../../report/types.js';
import type { Mode } from '../../tracer/format.js';
import { DEFAULTS, type WarmupSetting } from '../shared/defaults.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, pathOption, usage } from '../shared/options.js';
import type { ReportTarget } from '../shared/report-options.js';
import { JSON_REPORT, REPORT, validateConfirm, validateReports } from '../shared/report-options.js';
import { SEEDS, validateMode, validateSeeds, validateShard, validateWarmup, WARMUP } from '../shared/run-options.js';

export const command: Command<BumpOptions> = {
  usage: 'detdrift bump --base REF [options] -- CMD...',
  options: {
    base: { type: 'string', value: 'REF', help: 'the commit whose dependency tree is the base (required)' },
    head: {
      type: 'string',
      value: 'REF',
      help: 'the commit whose tree is head',
      default: 'the working tree, as installed',
    },
    'base-trace': {
      type: 'string',
      value: 'DIR',
      help: "base's traces, recorded elsewhere (a main-branch artifact): base is not run here",
    },
    seed: {
      type: 'string',
      multiple: true,
      value: 'N',
      help: 'a seed to try (repeatable): the report is about the first the bump changed',
      default: 'none',
    },
    ...SEEDS,
    mode: {
      type: 'string',
      value: 'MODE',
      help: 'control (the seed decides entropy, a virtual clock: does the same seed still run the same?) or observe (the real ones)',
      default: DEFAULTS.bumpMode,
    },
    ...WARMUP,
    install: {
      type: 'string',
      value: 'CMD',
      help: "the command that installs a checkout's dependencies",
      default: 'by lockfile: npm ci, pnpm install, yarn install',
    },
    out: {
      type: 'string',
      short: 'o',
      value: 'DIR',
      help: "keep the runs' traces in DIR (seed-N-base-1, seed-N-head-1, ...)",
      default: 'a temporary directory, removed',
    },
    ...JSON_REPORT,
    'no-confirm': {
      type: 'boolean',
      help: "do not replay a run to take the stack of a blamed call its first pass did not sample (a bump's cause is never replay-confirmed)",
    },
    ...REPORT,
    ...LOG,
  },
  example: 'detdrift bump --base origin/main --seed 42 --report github -- node test/sim.js',
  normalize: normalizeBump,
  load: () => import('./run.js'),
};

export interface BumpOptions extends CommonOptions {
  /** the base ref (a commit of the project's repository) */
  readonly base: string;
  /** the head ref; null: the working tree as it is, already installed */
  readonly head: string | null;
  /** absolute: base traces recorded elsewhere (a main-branch artifact); then base is not run here */
  readonly baseTrace: string | null;
  /**
   * `--seed` (repeatable) or `--seeds`, else no seed (this shard's share): tried in order; the report is
   * about the first whose run the bump changed
   */
  readonly seeds: readonly (string | null)[];
  /** `--shard I/N`: which share of the seed list `seeds` is; null without the option */
  readonly shard: ShardView | null;
  /** control by default (DEFAULTS.bumpMode); observe records the real clocks and entropy */
  readonly mode: Mode;
  /**
   * `--warmup`: whether each tree's first run is a warm-up, left out (`auto`: when a runner or loader
   * with a cache is named or seen), each in its own checkout with its own caches
   */
  readonly warmup: WarmupSetting;
  /** the install command for a worktree; null: by lockfile (npm ci, pnpm install, yarn install) */
  readonly install: readonly string[] | null;
  readonly command: readonly string[];
  /** absolute: where the runs' traces are kept; null: a temporary directory, removed at the end */
  readonly out: string | null;
  /** false with `--no-confirm`: no replay takes the stack of a blamed call its run did not sample */
  readonly confirm: boolean;
  readonly json: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
}

function normalizeBump(raw: RawInvocation, cwd: string): BumpOptions {
  if (raw.positionals.length > 0)
    throw usage(`bump takes no arguments before "--", got ${JSON.stringify(raw.positionals)}`);
  if (raw.command === null || raw.command.length === 0)
    throw usage('bump needs the command to run after "--", e.g. detdrift bump --base origin/main -- node test/sim.js');
  const base = raw.values.base;
  if (typeof base !== 'string' || base === '')
    throw usage('bump needs --base REF: the commit whose dependency tree is the base');
  const head = raw.values.head;
  const install = raw.values.install;
  const { seeds, shard } = validateShard(raw.values.shard, validateSeeds(raw.values) ?? [DEFAULTS.seed]);
  return Object.freeze({
    ...common(raw, cwd),
    base,
    head: typeof head === 'string' && head !== '' ? head : null,
    baseTrace: pathOption(raw.values['base-trace'], cwd),
    seeds: Object.freeze(seeds),
    shard,
    mode: validateMode(raw.values.mode, DEFAULTS.bumpMode),
    warmup: validateWarmup(raw.values.warmup),
    install: typeof install === 'string' && install.trim() !== '' ? Object.freeze(install.trim().split(/\s+/)) : null,
    command: Object.freeze([...raw.command]),
    out: pathOption(raw.values.out, cwd),
    confirm: validateConfirm(raw.values['no-confirm']),
    json: raw.values.json === true,
    reports: validateReports(raw.values.report, cwd),
  });
}
