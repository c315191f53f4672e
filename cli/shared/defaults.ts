import type { ReportFormat } from '../../report/formats.js';
import type { Mode } from '../../tracer/format.js';

/** The one source of every option's default; each command's `options.ts` builds its options from it. */
export const DEFAULTS = Object.freeze({
  /** observe: record what the program draws, change nothing */
  mode: 'observe' as Mode,
  /**
   * bump: control, so a library's own draws and clock reads come from the seed and a virtual
   * clock, and base and head answer "does the same seed still run the same?". In observe mode an
   * app whose libraries draw entropy is nondeterministic before any bump.
   */
  bumpMode: 'control' as Mode,
  /** no seed: the header then records `seed: null` */
  seed: null as string | null,
  /** the tool's own log: warnings and errors only, always on stderr */
  logLevel: 'warn' as LogLevel,
  /** the log on stderr as sentences for a person (`detdrift: warning: ...`); `json` for pino's lines */
  logFormat: 'human' as LogFormat,
  /** show, diff, check: text for a person, not JSON */
  json: false,
  /** check: how many times the command runs with the same seed */
  runs: 2,
  /**
   * check, bump: a warm-up run first when a runner or loader with a cache (Jest, Vitest, tsx, ts-node)
   * is named by the command or seen in the first run's stacks
   */
  warmup: 'auto' as WarmupSetting,
  /** check: keep the recorded traces (they are deleted after use otherwise) */
  keep: false,
  /** check, diff: confirm the cause by replay bisection */
  confirm: true,
  /** the most re-runs one bisection may spend (a search over n values needs about log2(n) + 8) */
  maxReplayRuns: 48,
  /**
   * check, diff: the file `--report FORMAT` writes when no `=FILE` follows (github goes to stdout, summary to
   * $GITHUB_STEP_SUMMARY)
   */
  reportFiles: Object.freeze({
    sarif: 'detdrift.sarif',
    comment: 'detdrift-comment.md',
    json: 'detdrift-report.json',
    html: 'detdrift-report.html',
  }),
  /** report: the format `detdrift report` renders when `--format` is not given */
  reportFormat: 'terminal' as ReportFormat,
});

/** `--warmup`: `auto` when a caching runner is named or seen, `on` always, `off` never (cli/shared/warmup.ts). */
export const WARMUP_SETTINGS = ['auto', 'on', 'off'] as const;
export type WarmupSetting = (typeof WARMUP_SETTINGS)[number];

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['human', 'json'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];
/** The environment variable naming a file that receives the log as JSON lines, as `--log-file` does. */
export const LOG_FILE_VAR = 'DETDRIFT_LOG_FILE';

/** Modes this version can record in; the others are planned and refused with a clear error. */
export const RECORDABLE_MODES: readonly Mode[] = ['observe', 'control'];
