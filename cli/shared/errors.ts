import { CodedError } from '../../tracer/errors.js';
import { inert } from '../../report/untrusted.js';

/** The tool's exit statuses (DESIGN.md, The report). `record` instead passes its command's status through. */
export const ExitStatus = Object.freeze({
  ok: 0,
  /** the runs diverge (compare, check, bump) */
  divergence: 1,
  /** bad usage or bad input: the user can fix it */
  usage: 2,
  /** detdrift itself failed: a bug to report */
  failure: 3,
});

/** The status of a comparing command: its runs agree, or they diverge. */
export function verdictStatus(verdict: 'agree' | 'diverge'): number {
  return verdict === 'agree' ? ExitStatus.ok : ExitStatus.divergence;
}

/**
 * Every code the CLI raises, with the status it exits with. Codes are stable: users and CI match
 * on them, so one is never renamed or reused for something else.
 */
const STATUS = Object.freeze({
  /** the command line does not parse: unknown command or option, missing value, missing `--` */
  ERR_USAGE: ExitStatus.usage,
  /** an option has a value outside its allowed set */
  ERR_OPTION_VALUE: ExitStatus.usage,
  /** this Node.js is outside package.json `engines` */
  ERR_NODE_VERSION: ExitStatus.usage,
  /** `--out` is not a directory that detdrift may clear */
  ERR_OUT_DIR: ExitStatus.usage,
  /**
   * a trace path does not exist, or a trace directory holds no trace file, or is no directory where one is
   * needed (replay, matrix)
   */
  ERR_NO_TRACES: ExitStatus.usage,
  /** the traced command could not be started (not found, not executable) */
  ERR_COMMAND_START: ExitStatus.usage,
  /** `scan` got a path that is not a readable directory */
  ERR_SCAN_DIR: ExitStatus.usage,
  /**
   * `report` got a file that is not a detdrift report (unreadable, not JSON, another schema), or a report
   * file cannot be written
   */
  ERR_REPORT_FILE: ExitStatus.usage,
  /**
   * `merge`: the reports are not one whole set of shards (one missing or given twice, another seed list or
   * command, a seed in two)
   */
  ERR_SHARDS: ExitStatus.usage,
  /** `bump`: the project has no lockfile, or the base ref has none */
  ERR_LOCKFILE_MISSING: ExitStatus.usage,
  /** `bump`: a git command failed (not a repository, a worktree could not be made) */
  ERR_GIT: ExitStatus.usage,
  /** `bump`: --base or --head is not a commit of the repository, or has no package.json there */
  ERR_GIT_REF: ExitStatus.usage,
  /** `bump`: installing a worktree's dependencies failed */
  ERR_INSTALL: ExitStatus.usage,
  /**
   * `bump`: the installed node_modules is not the tree its lockfile names (a lockfile bumped, the install not
   * run again)
   */
  ERR_INSTALL_STALE: ExitStatus.usage,
  /**
   * the project's detdrift.config.json (or package.json `detdrift` field) has a problem: each is named with
   * its file and path
   */
  ERR_CONFIG: ExitStatus.usage,
  /** `check`: the command failed (a non-zero status) in every run: there is no working run to check */
  ERR_COMMAND_FAILED: ExitStatus.usage,
  /**
   * `check`, `bump`: a run left no trace (no Node.js process ran under the hook, or the hook could not
   * record: its own error is quoted); two runs that recorded nothing agree on nothing
   */
  ERR_NOTHING_RECORDED: ExitStatus.usage,
  /**
   * `check`, `bump`: a run's first process exited, yet its trace has no end record (its exit never reached
   * the hook, or the hook stopped: its own error is quoted): what it did last is not in the trace
   */
  ERR_UNENDED_TRACE: ExitStatus.usage,
  /**
   * a run's trace could not be written (a full disk, a read-only or removed folder): the run that lost it
   * is named, and nothing is compared
   */
  ERR_TRACE_WRITE: ExitStatus.failure,
  /** `--out` is in use by another detdrift command: two at once would delete each other's traces */
  ERR_OUT_DIR_BUSY: ExitStatus.usage,
  /** the temporary folder (TMPDIR) cannot hold the work folder a command records in */
  ERR_TEMP_DIR: ExitStatus.usage,
  /** a signal interrupted a command that runs children: it exits 128+N (cli/shared/interrupt.ts) */
  ERR_INTERRUPTED: ExitStatus.failure,
  /** anything unexpected: a bug in detdrift */
  ERR_INTERNAL: ExitStatus.failure,
});

export type CliErrorCode = keyof typeof STATUS;

export class CliError extends CodedError {
  declare readonly code: CliErrorCode;
  readonly status: number;

  constructor(code: CliErrorCode, message: string, options?: ErrorOptions) {
    super(code, message, options);
    this.status = STATUS[code];
  }
}

export interface Reported {
  readonly status: number;
  /** what to print on stderr, newline-terminated */
  readonly text: string;
}

/**
 * The one place an error becomes output and an exit status. A coded error from below the CLI (a
 * trace the reader refuses, a lockfile) is bad input, and its message already names the file and
 * where in it; an error without a code is a bug, so it keeps its stack.
 */
export function reportError(error: unknown): Reported {
  if (error instanceof CodedError) {
    const hint =
      error.code === 'ERR_USAGE'
        ? "\nRun 'detdrift --help' for usage, 'detdrift COMMAND --help' for a command's options."
        : '';
    const status = error instanceof CliError ? error.status : ExitStatus.usage;
    return { status, text: `detdrift: ${error.code}: ${shown(error.message)}${hint}\n` };
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  return { status: ExitStatus.failure, text: `detdrift: ERR_INTERNAL: ${shown(detail)}\n` };
}

/**
 * A message can quote a package, a path or a program's output: each of its lines is shown inert
 * (report/untrusted.ts), so none can issue a workflow command or drive the terminal.
 */
function shown(message: string): string {
  return message.split('\n').map(inert).join('\n');
}
