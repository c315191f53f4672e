import { constants } from 'node:os';
import { execa, type Result, type ResultPromise } from 'execa';
import { TraceError } from '../tracer/errors.js';
import { TraceReader } from '../tracer/reader.js';
import { encode, HOOK_VARIABLES, type HookVariable } from '../tracer/settings.js';
import type { CommandContext } from './args.js';
import { CliError } from './errors.js';
import type { RecordOptions } from './options.js';
import { REGISTER } from './package.js';
import { interruption, throwIfInterrupted } from './interrupt.js';
import { findProject, type Project } from './project.js';
import { describeEnding } from '../report/trace.js';
import { displayPath } from './traces.js';
import { listTraceFiles, prepareOutDir } from './traces.js';

/**
 * `detdrift record --out DIR -- CMD...`: runs CMD with the hook in NODE_OPTIONS (so every Node
 * child and worker it starts is traced too), its stdio untouched, and exits with CMD's status.
 * What detdrift itself says goes to stderr, after CMD has ended.
 */
export async function run(options: RecordOptions, { logger }: CommandContext): Promise<number> {
  prepareOutDir(options.out);
  const result = await recordRun(options, 'inherit', logger);
  process.stderr.write(summarize(options.out, options.cwd));
  return result.status;
}

export interface RecordedRun {
  /** the command's exit status, or 128+N when signal N ended it */
  readonly status: number;
  /** what the command wrote to stderr, when its stdio was piped (a failing run shows it) */
  readonly stderr: string;
}

/** Runs the command once under the hook into `options.out`, which must be ready (prepareOutDir). */
export async function recordRun(
  options: Pick<RecordOptions, 'out' | 'mode' | 'seed' | 'command' | 'cwd'>,
  stdio: 'inherit' | 'pipe',
  logger: CommandContext['logger'],
  extraEnv: Readonly<Record<string, string | undefined>> = {},
): Promise<RecordedRun> {
  const env = traceEnvironment(options, findProject(options.cwd), extraEnv);
  const [file, ...args] = options.command as [string, ...string[]];
  logger.debug({ command: options.command, env: pickOwn(env) }, 'recording');
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
  return {
    status: result.exitCode ?? 128 + (constants.signals[result.signal!] ?? 0),
    stderr: typeof result.stderr === 'string' ? result.stderr : '',
  };
}

/** The hook's settings (tracer/settings.ts), and `extraEnv`, over a copy of this environment. */
function traceEnvironment(
  options: Pick<RecordOptions, 'out' | 'mode' | 'seed'>,
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

/** One stderr line per trace written: where it is, its event count and how it ended. */
function summarize(dir: string, cwd: string): string {
  const traces = listTraceFiles(dir);
  if (traces.length === 0) {
    return `detdrift: no trace written to ${displayPath(dir, cwd)}: was the command a Node.js process that keeps NODE_OPTIONS?\n`;
  }
  return traces.map(({ file }) => `detdrift: ${displayPath(file, cwd)}: ${readEnding(file)}\n`).join('');
}

function readEnding(file: string): string {
  let reader: TraceReader | undefined;
  try {
    reader = TraceReader.open(file);
    // a trace that ended well is told from its end record: decoding a million events costs the
    // run half a second more
    const quick = reader.quickEnding();
    if (quick !== null) return describeEnding(quick);
    for (const _event of reader.events());
    return describeEnding(reader.ending);
  } catch (error) {
    // A trace the reader refuses is reported, not fatal: CMD's status still decides ours.
    if (error instanceof TraceError) return `${error.code}: ${error.message}`;
    throw error;
  } finally {
    reader?.close();
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
