/**
 * Every command, once: what it does, its usage line, its options with their help and defaults, an
 * example, how its options are normalized and where its code is. args.ts parses with it, help.ts
 * prints it.
 */
import type { ParseArgsConfig } from 'node:util';
import { DEFAULT_DIMENSIONS } from '../instrument/perturb-dimensions.js';
import type { CommandContext } from './args.js';
import { DEFAULTS, EXTRA_REPORT_FORMATS, LOG_FILE_VAR, LOG_FORMATS, LOG_LEVELS, RECORDABLE_MODES } from './defaults.js';
import { REPORT_FORMATS } from '../report/render.js';
import {
  normalizeBump,
  normalizeCheck,
  normalizeDemo,
  normalizeDiff,
  normalizeMatrix,
  normalizeMerge,
  normalizeRecord,
  normalizeReplay,
  normalizeReport,
  normalizeScan,
  normalizeShow,
  type CommonOptions,
  type RawInvocation,
} from './options.js';

/** One option: how util.parseArgs reads it, and what `--help` says of it. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly multiple?: boolean;
  /** the value's name in help (`DIR`, `N`); none for a boolean */
  readonly value?: string;
  readonly help: string;
  /** the default as help shows it; none when leaving the option out means nothing more than its help says */
  readonly default?: string;
}

export type OptionSpecs = Readonly<Record<string, OptionSpec>>;

/** A command module: `run` resolves to the exit status. */
interface CommandModule<O> {
  run(options: O, context: CommandContext): Promise<number>;
}

export interface Command {
  /** what it does, in one line */
  readonly summary: string;
  readonly usage: string;
  readonly options: OptionSpecs;
  readonly example: string;
  /** normalizes the parsed command line (throwing its coded errors), then loads the command's code on demand */
  prepare(
    raw: RawInvocation,
    cwd: string,
  ): { readonly options: CommonOptions; start(context: CommandContext): Promise<number> };
}

const LOG: OptionSpecs = {
  'log-level': {
    type: 'string',
    value: 'LEVEL',
    help: `how much of detdrift's own log to write: ${LOG_LEVELS.join(', ')}`,
    default: DEFAULTS.logLevel,
  },
  'log-format': {
    type: 'string',
    value: 'FORMAT',
    help: `the log on stderr: ${LOG_FORMATS.join(' (sentences) or ')} (pino's lines)`,
    default: DEFAULTS.logFormat,
  },
  'log-file': {
    type: 'string',
    value: 'FILE',
    help: 'also append the log to FILE as JSON lines',
    default: `$${LOG_FILE_VAR}`,
  },
};

const REPORT: OptionSpecs = {
  report: {
    type: 'string',
    multiple: true,
    value: 'FORMAT[=FILE]',
    help: `also write the report as ${EXTRA_REPORT_FORMATS.join(', ')} (repeatable or comma-separated; see detdrift --help)`,
  },
};

const JSON_REPORT: OptionSpecs = {
  json: { type: 'boolean', help: 'print the report as JSON (detdrift.report/1) instead of text' },
};
const NO_CONFIRM: OptionSpecs = {
  'no-confirm': { type: 'boolean', help: 'do not confirm the cause by replaying the first run with its values pinned' },
};
const SEED: OptionSpecs = {
  seed: {
    type: 'string',
    value: 'N',
    help: 'the seed the program gets, decimal (42) or hexadecimal (0x2a)',
    default: 'none',
  },
};
/** check, bump: a seed list instead of --seed, and this job's shard of it */
const SEEDS: OptionSpecs = {
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
const MODE: OptionSpecs = {
  mode: {
    type: 'string',
    value: 'MODE',
    help: `${RECORDABLE_MODES.join(' (record what the program draws) or ')} (feed it seeded values)`,
    default: DEFAULTS.mode,
  },
};

export const COMMANDS: Readonly<Record<string, Command>> = Object.freeze({
  record: define({
    summary: 'runs a command under the hook and writes one trace per process',
    usage: 'detdrift record --out DIR [options] -- CMD...',
    options: {
      out: {
        type: 'string',
        short: 'o',
        value: 'DIR',
        help: 'the directory that receives the traces (required; its old traces are removed)',
      },
      ...SEED,
      ...MODE,
      ...LOG,
    },
    example: 'detdrift record --out trace --seed 42 -- node test/sim.js',
    normalize: normalizeRecord,
    // Loaded on demand: `show` need not pay for execa, and an old Node gets ERR_NODE_VERSION first.
    load: () => import('./record.js'),
  }),
  diff: define({
    summary: 'compares two recorded runs and reports where they part, and why',
    usage: 'detdrift diff A B [options]   (A, B: trace files, or directories of them)',
    options: { ...JSON_REPORT, ...NO_CONFIRM, ...REPORT, ...LOG },
    example: 'detdrift diff base-trace head-trace --report html',
    normalize: normalizeDiff,
    load: () => import('./diff.js'),
  }),
  check: define({
    summary: 'runs a command several times with the same seed and tells whether the runs agree, and why not',
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
    load: () => import('./check.js'),
  }),
  matrix: define({
    summary: "compares a CI matrix's traces, each run against the reference run of its seed",
    usage:
      'detdrift matrix DIR [options]   (DIR: one trace directory per platform, Node and seed, e.g. linux-20-seed42)',
    options: {
      reference: {
        type: 'string',
        value: 'NAME',
        help: 'the run the others of its seed are compared with',
        default: 'the first Linux run',
      },
      json: { type: 'boolean', help: 'print the matrix as JSON (detdrift.matrix/1) instead of a table' },
      summary: { type: 'string', value: 'FILE', help: 'append the table as Markdown to FILE ($GITHUB_STEP_SUMMARY)' },
      report: {
        type: 'string',
        multiple: true,
        value: 'html[=FILE]',
        help: `also write one page with the platform × seed grid (default file: ${DEFAULTS.reportFiles.html})`,
      },
      ...LOG,
    },
    example: 'detdrift matrix traces --summary "$GITHUB_STEP_SUMMARY"',
    normalize: normalizeMatrix,
    load: () => import('./matrix.js'),
  }),
  merge: define({
    summary: "combines the reports of a seed list's shards into one verdict, as one run over every seed gives it",
    usage:
      'detdrift merge REPORT.json...|DIR... [options]   (DIR: its *.json files at any depth, as a CI job downloads them)',
    options: { ...JSON_REPORT, ...REPORT, ...LOG },
    example: 'detdrift merge shards --report github --report summary',
    normalize: normalizeMerge,
    load: () => import('./merge.js'),
  }),
  bump: define({
    summary:
      "runs a command with the same seed on the base's dependency tree and on head's, and tells what the bump changed",
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
      install: {
        type: 'string',
        value: 'CMD',
        help: "the command that installs a checkout's dependencies",
        default: 'by lockfile: npm ci, pnpm install, yarn install',
      },
      ...JSON_REPORT,
      ...REPORT,
      ...LOG,
    },
    example: 'detdrift bump --base origin/main --seed 42 --report github -- node test/sim.js',
    normalize: normalizeBump,
    load: () => import('./bump.js'),
  }),
  replay: define({
    summary: "runs a command with a recorded run's values fed back",
    usage: 'detdrift replay TRACE [options] -- CMD...',
    options: {
      out: {
        type: 'string',
        short: 'o',
        value: 'DIR',
        help: "where the replayed run's traces go",
        default: 'a temporary directory',
      },
      ...JSON_REPORT,
      ...LOG,
    },
    example: 'detdrift replay trace -- node test/sim.js',
    normalize: normalizeReplay,
    load: () => import('./replay.js'),
  }),
  report: define({
    summary: 'renders a saved --json report (- reads stdin), or the comparison of two traces, in another form',
    usage: 'detdrift report REPORT.json|- [options]  |  detdrift report A B [options]',
    options: {
      format: { type: 'string', value: 'FORMAT', help: REPORT_FORMATS.join(', '), default: DEFAULTS.reportFormat },
      out: { type: 'string', short: 'o', value: 'FILE', help: 'write it to FILE', default: 'stdout' },
      ...LOG,
    },
    example: 'detdrift report base-trace head-trace --format html -o drift.html',
    normalize: normalizeReport,
    load: () => import('./report.js'),
  }),
  demo: define({
    summary: 'the bundled example: a dependency bump breaks a seeded simulation',
    usage: 'detdrift demo [options]',
    options: { ...JSON_REPORT, ...LOG },
    example: 'detdrift demo',
    normalize: normalizeDemo,
    load: () => import('./demo.js'),
  }),
  show: define({
    summary: 'prints a trace, one line per recorded call',
    usage: 'detdrift show TRACE [options]   (TRACE: a trace file, or a directory of them)',
    options: { json: { type: 'boolean', help: 'one JSON object per line instead of text' }, ...LOG },
    example: 'detdrift show trace --json',
    normalize: normalizeShow,
    load: () => import('./show.js'),
  }),
  scan: define({
    summary: 'lists the clock and entropy call sites in a package, or those a new version added',
    usage: 'detdrift scan DIR [options]  |  detdrift scan --diff A B [options]',
    options: {
      diff: { type: 'boolean', help: 'compare two versions of a package: the sites B adds, removes or changes' },
      json: { type: 'boolean', help: 'print JSON instead of text' },
      ...LOG,
    },
    example: 'detdrift scan --diff ../base/node_modules/dep node_modules/dep',
    normalize: normalizeScan,
    load: () => import('./scan.js'),
  }),
});

function define<O extends CommonOptions>(spec: {
  summary: string;
  usage: string;
  options: OptionSpecs;
  example: string;
  normalize: (raw: RawInvocation, cwd: string) => O;
  load: () => Promise<CommandModule<O>>;
}): Command {
  const { normalize, load, ...described } = spec;
  return {
    ...described,
    prepare(raw, cwd) {
      const options = normalize(raw, cwd);
      return { options, start: async (context) => (await load()).run(options, context) };
    },
  };
}

/** The table util.parseArgs reads: each option's type, short form and whether it repeats. */
export function parseTable(options: OptionSpecs): NonNullable<ParseArgsConfig['options']> {
  return Object.fromEntries(
    Object.entries(options).map(([name, { type, short, multiple }]) => [
      name,
      { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) },
    ]),
  );
}
