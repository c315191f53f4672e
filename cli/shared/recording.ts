/**
 * One run of a command under the hook: the hook in NODE_OPTIONS (so every Node child and worker it
 * starts is traced too), its settings in the environment. `record` runs it once; check, bump,
 * demo, replay and the confirming replays run it again and again.
 */
import { constants } from 'node:os';
import { execa, type Result, type ResultPromise } from 'execa';
import type { Mode } from '../../tracer/format.js';
import { encode, HOOK_VARIABLES, type HookVariable } from '../../tracer/settings.js';
import { CliError } from './errors.js';
import { interruption, throwIfInterrupted } from './interrupt.js';
import { assertTraceWritten } from './lost-trace.js';
import type { CommandContext } from './options.js';
import { REGISTER } from './package.js';
import { findProject, type Project } from './project.js';
import { withRunnerArgs } from './runner-args.js';

/** What one run needs. */
export interface Recording {
  /** absolute: the directory that receives one trace per process; it must be ready (prepareOutDir) */
  readonly out: string;
  readonly mode: Mode;
  /** kept as typed (`42` and `0x2a` stay apart in the header), null when not given */
  readonly seed: string | null;
  /** the traced command and its arguments, never empty */
  readonly command: readonly string[];
  readonly cwd: string;
}

export interface RecordedRun {
  /** the command's exit status, or 128+N when signal N ended it */
  readonly status: number;
  /** the signal that ended the command, null when it exited */
  readonly signal: string | null;
  /** what the command wrote to stderr, when its stdio was piped (a failing run shows it) */
  readonly stderr: string;
}

/** Runs the command once under the hook into `options.out`, which must be ready (prepareOutDir). */
export async function recordRun(
  options: Recording,
  stdio: 'inherit' | 'pipe',
  logger: CommandContext['logger'],
  extraEnv: Readonly<Record<string, string | undefined>> = {},
): Promise<RecordedRun> {
  const env = traceEnvironment(options, findProject(options.cwd), extraEnv);
  const runner = withRunnerArgs(options.command, options.cwd);
  const [file, ...args] = runner.command as [string, ...string[]];
  if (runner.added.length > 0) logger.debug({ added: runner.added }, "added the test runner's arguments");
  logger.debug({ command: runner.command, env: pickOwn(env) }, 'recording');
  const subprocess = execa(file, args, {
    cwd: options.cwd,
    env,
    extendEnv: false,
    stdio,
    reject: false,
    stripFinalNewline: false,
    cancelSignal: interruption,
  });
  const result = stdio === 'inherit' ? await forwardingSignals(subprocess) : await subprocess;
  throwIfInterrupted();
  if (result.exitCode === undefined && result.signal === undefined) {
    throw new CliError('ERR_COMMAND_START', `cannot start ${JSON.stringify(file)}: ${causeOf(result)}`, {
      cause: result.cause,
    });
  }
  const stderr = typeof result.stderr === 'string' ? result.stderr : '';
  assertTraceWritten(options.out, stderr);
  return {
    status: result.exitCode ?? 128 + (constants.signals[result.signal!] ?? 0),
    signal: result.signal ?? null,
    stderr,
  };
}

/** The hook's settings (tracer/settings.ts), and `extraEnv`, over a copy of this environment. */
function traceEnvironment(
  options: Pick<Recording, 'out' | 'mode' | 'seed'>,
  project: Project,
  extraEnv: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const env: Record<string, string | undefined> = { ...process.env };
  // `--require`, not `--import`: an --import makes Node run a CommonJS entry point through the ESM
  // loader, where a loader's CommonJS hooks (ts-node's) never see it. Quoted for NODE_OPTIONS, which
  // reads a backslash in quotes as an escape (Windows paths).
  const hook = `--require="${REGISTER.replace(/[\\"]/g, '\\$&')}"`;
  env.NODE_OPTIONS = env.NODE_OPTIONS ? `${env.NODE_OPTIONS} ${hook}` : hook;
  // A recording names its first process `0` (spawn unset), even when detdrift runs under a traced parent.
  Object.assign(
    env,
    encode({
      traceDir: options.out,
      mode: options.mode,
      seed: options.seed,
      root: project.root,
      lockfile: project.lockfile,
      spawn: null,
      owner: process.pid,
    }),
    extraEnv,
  );
  for (const key of Object.keys(env)) if (env[key] === undefined) delete env[key];
  return env as Record<string, string>;
}

/**
 * While CMD runs, a SIGTERM or SIGHUP sent to detdrift is passed on, so CMD ends as it would have
 * without us (its hook listens to no signal: its trace keeps the chunks written so far) and CMD's
 * status decides ours. SIGINT from a terminal already reaches CMD (same process
 * group); sending it again would make a program that counts Ctrl-C presses act twice.
 */
async function forwardingSignals(subprocess: ResultPromise): Promise<Result> {
  const forward = (signal: NodeJS.Signals) => void subprocess.kill(signal);
  const ignore = () => {};
  process.on('SIGTERM', forward).on('SIGHUP', forward).on('SIGINT', ignore);
  try {
    return await subprocess;
  } finally {
    process.off('SIGTERM', forward).off('SIGHUP', forward).off('SIGINT', ignore);
  }
}

function pickOwn(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.entries(env).filter(([key]) => HOOK_VARIABLES.includes(key as HookVariable) || key === 'NODE_OPTIONS'),
  );
}

function causeOf(result: Result): string {
  return result.cause instanceof Error ? result.cause.message : (result.shortMessage ?? 'unknown error');
}
