import { resolve } from 'node:path';
import type { ShardView } from '../report/types.js';
import { MODES, type Mode } from '../tracer/format.js';
import {
  DEFAULTS,
  EXTRA_REPORT_FORMATS,
  LOG_FILE_VAR,
  LOG_FORMATS,
  LOG_LEVELS,
  MATRIX_REPORT_FORMATS,
  RECORDABLE_MODES,
  type LogFormat,
  type LogLevel,
} from './defaults.js';
import { REPORT_FORMATS, type ReportFormat } from '../report/render.js';
import { CONFIG_FILE, projectConfig } from './config.js';
import type { IgnoreRules, ProjectConfig } from './config-schema.js';
import { CliError } from './errors.js';
import { expandSeeds, parseShard, SEED_TEXT, shareOf } from './seeds.js';
import { DEFAULT_DIMENSIONS, parsePerturbations, type Perturbation } from '../instrument/perturb-dimensions.js';

/** What `args.ts` hands over: the raw `util.parseArgs` values, positionals and the command after `--`. */
export interface RawInvocation {
  readonly values: Readonly<Record<string, string | boolean | ReadonlyArray<string | boolean> | undefined>>;
  readonly positionals: readonly string[];
  /** everything after `--`, or null when there was no `--` */
  readonly command: readonly string[] | null;
}

export interface CommonOptions {
  readonly logLevel: LogLevel;
  /** stderr's log: sentences (`human`) or pino's JSON lines (`json`) */
  readonly logFormat: LogFormat;
  /** absolute: `--log-file`, else $DETDRIFT_LOG_FILE: a file that also gets the log as JSON lines; null: none */
  readonly logFile: string | null;
  readonly cwd: string;
}

export interface RecordOptions extends CommonOptions {
  /** absolute: the directory that receives one trace per process; its old traces are removed first */
  readonly out: string;
  readonly mode: Mode;
  /** kept as typed (`42` and `0x2a` stay apart in the header), null when not given */
  readonly seed: string | null;
  /** the traced command and its arguments, never empty */
  readonly command: readonly string[];
}

export interface ShowOptions extends CommonOptions {
  /** absolute: one trace file, or a directory of them */
  readonly trace: string;
  readonly json: boolean;
}

/** One `--report FORMAT[=FILE]` of check and diff: a form of the report written besides the command's own. */
export interface ReportTarget {
  readonly format: ReportFormat;
  /** absolute: the file it goes to; null for github without a file, which goes to stdout after the report (stderr under --json) */
  readonly file: string | null;
  /** add to the file instead of replacing it: the job summary, `$GITHUB_STEP_SUMMARY` */
  readonly append: boolean;
}

export interface ReportOptions extends CommonOptions {
  /** absolute: a report written by `--json` or `--report json`; null: read it from stdin (`-`), or compare `traces` */
  readonly input: string | null;
  /** absolute: two traces (files or directories) to compare instead of reading a report; null: read one */
  readonly traces: { readonly a: string; readonly b: string } | null;
  /** the config's `ignore`, for comparing `traces` */
  readonly ignore: IgnoreRules;
  readonly format: ReportFormat;
  /** absolute: where the rendering goes; null: stdout */
  readonly out: string | null;
}

export interface DiffOptions extends CommonOptions {
  /** absolute: two trace files, or two directories compared process by process */
  readonly a: string;
  readonly b: string;
  readonly json: boolean;
  /** confirm the cause by replay when run A's command can be re-run here */
  readonly confirm: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
  /** the config's `ignore`: calls left out of the comparison */
  readonly ignore: IgnoreRules;
  readonly configWarnings: readonly string[];
}

export interface ReplayOptions extends CommonOptions {
  /** absolute: the recorded run's trace directory */
  readonly trace: string;
  /** absolute: where the replayed run's traces go; null: a temporary directory */
  readonly out: string | null;
  readonly command: readonly string[];
  readonly json: boolean;
}

export interface CheckOptions extends CommonOptions {
  /** after `--`, else the config's `command` */
  readonly command: readonly string[];
  readonly mode: Mode;
  /** the first of `seeds` */
  readonly seed: string | null;
  /** `--seed` or `--seeds`, else the config's `seeds`, else no seed (this shard's share): each is checked in turn until one diverges */
  readonly seeds: readonly (string | null)[];
  /** `--shard I/N`: which share of the seed list `seeds` is; null without the option */
  readonly shard: ShardView | null;
  /** the config's `ignore`: calls left out of the comparison */
  readonly ignore: IgnoreRules;
  /** the config's warnings (unknown keys), logged when the command runs */
  readonly configWarnings: readonly string[];
  /** at least 2: each later run is compared with the first */
  readonly runs: number;
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

export interface MatrixOptions extends CommonOptions {
  /** absolute: a directory with one trace directory per platform, Node and seed (`linux-20-seed42`) */
  readonly dir: string;
  /** the run the others are compared with (its platform and Node, for each seed); null: the first Linux run */
  readonly reference: string | null;
  readonly json: boolean;
  /** absolute: a file to append the Markdown table to (`$GITHUB_STEP_SUMMARY`); null: none */
  readonly summary: string | null;
  /** `--report html[=FILE]`: the page with the platform × seed grid */
  readonly reports: readonly ReportTarget[];
}

export interface BumpOptions extends CommonOptions {
  /** the base ref (a commit of the project's repository) */
  readonly base: string;
  /** the head ref; null: the working tree as it is, already installed */
  readonly head: string | null;
  /** absolute: base traces recorded elsewhere (a main-branch artifact); then base is not run here */
  readonly baseTrace: string | null;
  /** `--seed` (repeatable) or `--seeds`, else no seed (this shard's share): tried in order; the report is about the first whose run the bump changed */
  readonly seeds: readonly (string | null)[];
  /** `--shard I/N`: which share of the seed list `seeds` is; null without the option */
  readonly shard: ShardView | null;
  /** control by default (DEFAULTS.bumpMode); observe records the real clocks and entropy */
  readonly mode: Mode;
  /** the install command for a worktree; null: by lockfile (npm ci, pnpm install, yarn install) */
  readonly install: readonly string[] | null;
  readonly command: readonly string[];
  readonly json: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
}

export interface MergeOptions extends CommonOptions {
  /** absolute: report files (`--report json`), and directories whose `*.json` files, at any depth, are reports */
  readonly inputs: readonly string[];
  readonly json: boolean;
  /** `--report`: the other forms to write, in the order given */
  readonly reports: readonly ReportTarget[];
}

export interface DemoOptions extends CommonOptions {
  readonly json: boolean;
}

export interface ScanOptions extends CommonOptions {
  /** absolute: the package directory (`node_modules/pkg` works; links are followed); with `--diff`, the new version B */
  readonly dir: string;
  /** absolute: with `--diff`, the old version A that `dir` is compared with; null for a plain scan */
  readonly base: string | null;
  readonly json: boolean;
}

export function normalizeDiff(raw: RawInvocation, cwd: string): DiffOptions {
  if (raw.command !== null) throw usage('diff takes no command after "--"');
  if (raw.positionals.length !== 2)
    throw usage(`diff needs two traces (files or directories) A and B, got ${raw.positionals.length}`);
  const configured = fromConfig(cwd);
  return Object.freeze({
    ...common(raw, cwd),
    a: resolve(cwd, raw.positionals[0]!),
    b: resolve(cwd, raw.positionals[1]!),
    json: raw.values.json === true,
    confirm: raw.values['no-confirm'] === true ? false : DEFAULTS.confirm,
    reports: validateReports(raw.values.report, cwd),
    ignore: configured.ignore,
    configWarnings: configured.configWarnings,
  });
}

export function normalizeReplay(raw: RawInvocation, cwd: string): ReplayOptions {
  if (raw.positionals.length !== 1)
    throw usage(`replay needs one TRACE directory before "--", got ${raw.positionals.length}`);
  if (raw.command === null || raw.command.length === 0)
    throw usage('replay needs the command to run after "--", e.g. detdrift replay trace -- node app.js');
  const out = raw.values.out;
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    out: typeof out === 'string' && out !== '' ? resolve(cwd, out) : null,
    command: Object.freeze([...raw.command]),
    json: raw.values.json === true,
  });
}

export function normalizeCheck(raw: RawInvocation, cwd: string): CheckOptions {
  if (raw.positionals.length > 0)
    throw usage(`check takes no arguments before "--", got ${JSON.stringify(raw.positionals)}`);
  const { config, ...configured } = fromConfig(cwd);
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
  const out = raw.values.out;
  return Object.freeze({
    ...common(raw, cwd),
    ...configured,
    command: Object.freeze([...command]),
    mode: validateMode(raw.values.mode),
    seed: seeds[0]!,
    seeds: Object.freeze(seeds),
    shard,
    runs: validateRuns(raw.values.runs),
    out: typeof out === 'string' && out !== '' ? resolve(cwd, out) : null,
    keep: raw.values.keep === true,
    json: raw.values.json === true,
    confirm: raw.values['no-confirm'] === true ? false : DEFAULTS.confirm,
    reports: validateReports(raw.values.report, cwd),
    perturb: validatePerturb(raw.values.perturb),
  });
}

export function normalizeMatrix(raw: RawInvocation, cwd: string): MatrixOptions {
  if (raw.command !== null) throw usage('matrix takes no command after "--"');
  if (raw.positionals.length !== 1)
    throw usage(`matrix needs one DIR holding a trace directory per run, got ${raw.positionals.length}`);
  const { reference, summary } = raw.values;
  return Object.freeze({
    ...common(raw, cwd),
    dir: resolve(cwd, raw.positionals[0]!),
    reference: typeof reference === 'string' && reference !== '' ? reference : null,
    json: raw.values.json === true,
    summary: typeof summary === 'string' && summary !== '' ? resolve(cwd, summary) : null,
    reports: validateReports(raw.values.report, cwd, MATRIX_REPORT_FORMATS),
  });
}

export function normalizeReport(raw: RawInvocation, cwd: string): ReportOptions {
  if (raw.command !== null) throw usage('report takes no command after "--"');
  const paths = raw.positionals;
  if (paths.length !== 1 && paths.length !== 2)
    throw usage(
      `report needs one REPORT.json (written by --json), - for stdin, or two traces A and B, got ${paths.length}`,
    );
  const traces = paths.length === 2 ? { a: resolve(cwd, paths[0]!), b: resolve(cwd, paths[1]!) } : null;
  const out = raw.values.out;
  return Object.freeze({
    ...common(raw, cwd),
    input: traces || paths[0] === '-' ? null : resolve(cwd, paths[0]!),
    traces,
    ignore: traces ? fromConfig(cwd).ignore : { sites: [], packages: [] },
    format: validateFormat(raw.values.format),
    out: typeof out === 'string' && out !== '' ? resolve(cwd, out) : null,
  });
}

export function normalizeBump(raw: RawInvocation, cwd: string): BumpOptions {
  if (raw.positionals.length > 0)
    throw usage(`bump takes no arguments before "--", got ${JSON.stringify(raw.positionals)}`);
  if (raw.command === null || raw.command.length === 0)
    throw usage('bump needs the command to run after "--", e.g. detdrift bump --base origin/main -- node test/sim.js');
  const base = raw.values.base;
  if (typeof base !== 'string' || base === '')
    throw usage('bump needs --base REF: the commit whose dependency tree is the base');
  const head = raw.values.head;
  const baseTrace = raw.values['base-trace'];
  const install = raw.values.install;
  const { seeds, shard } = validateShard(raw.values.shard, validateSeeds(raw.values) ?? [DEFAULTS.seed]);
  return Object.freeze({
    ...common(raw, cwd),
    base,
    head: typeof head === 'string' && head !== '' ? head : null,
    baseTrace: typeof baseTrace === 'string' && baseTrace !== '' ? resolve(cwd, baseTrace) : null,
    seeds: Object.freeze(seeds),
    shard,
    mode: validateMode(raw.values.mode, DEFAULTS.bumpMode),
    install: typeof install === 'string' && install.trim() !== '' ? Object.freeze(install.trim().split(/\s+/)) : null,
    command: Object.freeze([...raw.command]),
    json: raw.values.json === true,
    reports: validateReports(raw.values.report, cwd),
  });
}

export function normalizeMerge(raw: RawInvocation, cwd: string): MergeOptions {
  if (raw.command !== null) throw usage('merge takes no command after "--"');
  if (raw.positionals.length === 0)
    throw usage(
      "merge needs the shards' reports: REPORT.json files (written by --report json), or directories of them",
    );
  return Object.freeze({
    ...common(raw, cwd),
    inputs: Object.freeze(raw.positionals.map((path) => resolve(cwd, path))),
    json: raw.values.json === true,
    reports: validateReports(raw.values.report, cwd),
  });
}

export function normalizeDemo(raw: RawInvocation, cwd: string): DemoOptions {
  if (raw.positionals.length > 0 || raw.command !== null) throw usage('demo takes no arguments');
  return Object.freeze({ ...common(raw, cwd), json: raw.values.json === true });
}

export function normalizeRecord(raw: RawInvocation, cwd: string): RecordOptions {
  if (raw.positionals.length > 0) {
    throw usage(
      `record takes no arguments before "--", got ${JSON.stringify(raw.positionals)}: put the command after "--"`,
    );
  }
  if (raw.command === null || raw.command.length === 0) {
    throw usage('record needs the command to trace after "--", e.g. detdrift record --out trace -- node app.js');
  }
  const out = raw.values.out;
  if (typeof out !== 'string' || out === '')
    throw usage('record needs --out DIR: the directory that receives the traces');
  return Object.freeze({
    ...common(raw, cwd),
    out: resolve(cwd, out),
    mode: validateMode(raw.values.mode),
    seed: validateSeed(raw.values.seed),
    command: Object.freeze([...raw.command]),
  });
}

export function normalizeShow(raw: RawInvocation, cwd: string): ShowOptions {
  if (raw.command !== null) throw usage('show takes no command after "--"');
  if (raw.positionals.length !== 1) {
    throw usage(`show needs exactly one TRACE (a trace file or a directory of them), got ${raw.positionals.length}`);
  }
  return Object.freeze({
    ...common(raw, cwd),
    trace: resolve(cwd, raw.positionals[0]!),
    json: raw.values.json === true ? true : DEFAULTS.json,
  });
}

export function normalizeScan(raw: RawInvocation, cwd: string): ScanOptions {
  if (raw.command !== null) throw usage('scan takes no command after "--"');
  const diff = raw.values.diff === true;
  const wanted = diff ? 2 : 1;
  if (raw.positionals.length !== wanted) {
    throw usage(
      diff
        ? `scan --diff needs two package directories, the old version A and the new B, got ${raw.positionals.length}`
        : `scan needs one package directory, got ${raw.positionals.length}; to compare two versions: scan --diff A B`,
    );
  }
  const [first, second] = raw.positionals.map((path) => resolve(cwd, path));
  return Object.freeze({
    ...common(raw, cwd),
    dir: diff ? second! : first!,
    base: diff ? first! : null,
    json: raw.values.json === true ? true : DEFAULTS.json,
  });
}

/** The project config's share of a comparing command's options (cli/config.ts); a bad config is ERR_CONFIG. */
function fromConfig(cwd: string): { config: ProjectConfig; ignore: IgnoreRules; configWarnings: readonly string[] } {
  const { config, warnings } = projectConfig(cwd);
  return { config, ignore: { ...config.ignore, runners: config.runners }, configWarnings: warnings };
}

function common(raw: RawInvocation, cwd: string, env: NodeJS.ProcessEnv = process.env): CommonOptions {
  const file = raw.values['log-file'] ?? env[LOG_FILE_VAR];
  return {
    logLevel: validateLogLevel(raw.values['log-level']),
    logFormat: validateLogFormat(raw.values['log-format']),
    logFile: typeof file === 'string' && file !== '' ? resolve(cwd, file) : null,
    cwd,
  };
}

// Each validator names the option, the value it got and the values it allows.

function validateMode(value: unknown, fallback: Mode = DEFAULTS.mode): Mode {
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

function validateSeed(value: unknown): string | null {
  if (value === undefined) return DEFAULTS.seed;
  if (typeof value === 'string' && SEED_TEXT.test(value)) return value;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--seed got ${JSON.stringify(value)}; allowed: a non-negative integer, decimal (42) or hexadecimal (0x2a)`,
  );
}

/** `--seed N` (bump: repeatable) or `--seeds LIST` (`1..1000`, `1,5,9`, `1..10,42`), not both; null when neither is given. */
function validateSeeds({ seed, seeds }: RawInvocation['values']): string[] | null {
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

/** `--shard I/N`: this run's share of `seeds` (cli/seeds.ts), where each of the N shares gets a seed at least. */
function validateShard(
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

function validateRuns(value: unknown): number {
  if (value === undefined) return DEFAULTS.runs;
  const runs = Number(value);
  if (typeof value === 'string' && /^\d+$/.test(value) && runs >= 2 && runs <= 100) return runs;
  throw new CliError('ERR_OPTION_VALUE', `--runs got ${JSON.stringify(value)}; allowed: a whole number from 2 to 100`);
}

function validateFormat(value: unknown): ReportFormat {
  if (value === undefined) return DEFAULTS.reportFormat;
  if (REPORT_FORMATS.includes(value as ReportFormat)) return value as ReportFormat;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--format got ${JSON.stringify(value)}; allowed: ${REPORT_FORMATS.join(', ')}`,
  );
}

/**
 * `--report FORMAT[=FILE]`, repeatable and comma-separated, of `formats`. Without a file: github
 * goes to stdout, summary is appended to $GITHUB_STEP_SUMMARY (an error outside GitHub Actions,
 * where it is not set), and sarif, comment, json and html go to their default files in the
 * working directory.
 */
function validateReports(
  value: unknown,
  cwd: string,
  formats = EXTRA_REPORT_FORMATS,
  env: NodeJS.ProcessEnv = process.env,
): ReportTarget[] {
  if (value === undefined) return [];
  const specs = (Array.isArray(value) ? value : [value]).flatMap((entry) => String(entry).split(','));
  const allowed = `allowed: ${formats.join(', ')}, each optionally =FILE`;
  return specs.map((spec) => {
    const at = spec.indexOf('=');
    const format = (at < 0 ? spec : spec.slice(0, at)).trim() as ReportFormat;
    const file = at < 0 ? null : spec.slice(at + 1);
    if (!formats.includes(format))
      throw new CliError('ERR_OPTION_VALUE', `--report got ${JSON.stringify(spec)}; ${allowed}`);
    if (file === '')
      throw new CliError(
        'ERR_OPTION_VALUE',
        `--report got ${JSON.stringify(spec)}: the file after "=" is empty; ${allowed}`,
      );
    if (file !== null) return Object.freeze({ format, file: resolve(cwd, file), append: false });
    if (format === 'github') return Object.freeze({ format, file: null, append: false });
    if (format === 'summary') {
      const summary = env.GITHUB_STEP_SUMMARY;
      if (!summary)
        throw new CliError(
          'ERR_OPTION_VALUE',
          `--report got "summary", but $GITHUB_STEP_SUMMARY is not set (it is inside GitHub Actions); allowed here: summary=FILE`,
        );
      return Object.freeze({ format, file: resolve(cwd, summary), append: true });
    }
    return Object.freeze({
      format,
      file: resolve(cwd, DEFAULTS.reportFiles[format as keyof typeof DEFAULTS.reportFiles]),
      append: false,
    });
  });
}

function validateLogLevel(value: unknown): LogLevel {
  if (value === undefined) return DEFAULTS.logLevel;
  if (LOG_LEVELS.includes(value as LogLevel)) return value as LogLevel;
  throw new CliError('ERR_OPTION_VALUE', `--log-level got ${JSON.stringify(value)}; allowed: ${LOG_LEVELS.join(', ')}`);
}

function validateLogFormat(value: unknown): LogFormat {
  if (value === undefined) return DEFAULTS.logFormat;
  if (LOG_FORMATS.includes(value as LogFormat)) return value as LogFormat;
  throw new CliError(
    'ERR_OPTION_VALUE',
    `--log-format got ${JSON.stringify(value)}; allowed: ${LOG_FORMATS.join(', ')}`,
  );
}

function usage(message: string): CliError {
  return new CliError('ERR_USAGE', message);
}
