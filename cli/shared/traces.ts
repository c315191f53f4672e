import { accessSync, constants, lstatSync, readdirSync, rmSync, statSync, truncateSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { makeDirectory } from '../../tracer/directory.js';
import { TRACE_EXTENSION } from '../../tracer/format.js';
import { compareLineage } from '../../tracer/lineage.js';
import { TraceReader } from '../../tracer/reader.js';
import { CliError } from './errors.js';

/** `--out`'s lock (out-lock.ts): the one file a trace directory holds besides traces. */
export const LOCK_NAME = '.detdrift-lock';

export interface TraceFile {
  /** spawn lineage: `0`, `0.2`, `0.w1`, `0~2` */
  readonly lineage: string;
  readonly file: string;
}

/** The trace files of a directory in lineage order: a parent before its children, `0.2` before `0.10`. */
export function listTraceFiles(dir: string): TraceFile[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(TRACE_EXTENSION))
    .map((entry) => ({ lineage: entry.name.slice(0, -TRACE_EXTENSION.length), file: join(dir, entry.name) }))
    .sort((a, b) => compareLineage(a.lineage, b.lineage));
}

/**
 * Refuses a trace path that is missing, or a directory with no trace (two empty directories would
 * otherwise "agree"), before any comparison: anything else must open as a trace, so a device, an
 * empty file or a file of another kind is refused with the reader's coded error.
 */
export function assertTraces(...paths: readonly string[]): void {
  for (const path of paths) {
    const stats = statSync(path, { throwIfNoEntry: false });
    if (!stats) throw new CliError('ERR_NO_TRACES', `no trace at ${path}`);
    if (!stats.isDirectory()) TraceReader.open(path).close();
    else if (listTraceFiles(path).length === 0)
      throw new CliError('ERR_NO_TRACES', `${path} holds no trace file (*.ddtrace)`);
  }
}

/**
 * The traces of the directory a run was recorded into (`replay` takes no single file: it feeds every process
 * its own).
 */
export function recordedTraces(dir: string): TraceFile[] {
  const stats = statSync(dir, { throwIfNoEntry: false });
  if (stats && !stats.isDirectory()) {
    throw new CliError(
      'ERR_NO_TRACES',
      `${dir} is not a trace directory: give the directory the run was recorded into`,
    );
  }
  const traces = stats ? listTraceFiles(dir) : [];
  if (traces.length === 0) throw new CliError('ERR_NO_TRACES', `no traces to replay in ${dir}`);
  return traces;
}

/**
 * Makes `dir` ready for a fresh recording: created if missing, its old traces removed so the new
 * run's names (by lineage) do not collide with them. A directory holding anything else is refused:
 * `--out .` by mistake must not delete a project.
 */
export function prepareOutDir(dir: string): void {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      createOutDir(dir);
      return;
    }
    if (code === 'ENOTDIR') throw new CliError('ERR_OUT_DIR', `--out ${dir} exists and is not a directory`);
    throw new CliError('ERR_OUT_DIR', `--out ${dir} cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const others = entries.filter(
    (entry) => !(entry.isFile() && (entry.name.endsWith(TRACE_EXTENSION) || entry.name === LOCK_NAME)),
  );
  if (others.length > 0) {
    const names = others
      .map((entry) => entry.name)
      .sort()
      .slice(0, 3)
      .map((name) => JSON.stringify(name))
      .join(', ');
    const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
    throw new CliError(
      'ERR_OUT_DIR',
      `--out ${dir} holds files that are not traces (${names}${more}); give an empty or trace-only directory`,
    );
  }
  assertWritable(dir);
  // Dirents describe links themselves, so a symlink named *.ddtrace was refused above, not followed.
  for (const entry of entries) if (entry.name !== LOCK_NAME) removeTrace(join(dir, entry.name));
}

/** A read-only --out is said before the run, not found as a run with no trace after it. */
function assertWritable(dir: string): void {
  try {
    accessSync(dir, constants.W_OK);
  } catch (error) {
    throw new CliError('ERR_OUT_DIR', `--out ${dir} is not writable: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Emptied, then removed: a program still writing it (the orphan of a SIGKILLed check, which closes
 * it at its next write) or holding it open would otherwise keep its blocks on the disk.
 */
function removeTrace(file: string): void {
  truncateSync(file);
  rmSync(file);
}

/** Empties every trace file below `dir` (a work folder about to be deleted), for removeTrace's reason. */
export function freeTraces(dir: string): void {
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith(TRACE_EXTENSION)) continue;
    const file = join(dir, name);
    if (lstatSync(file).isFile()) truncateSync(file);
  }
}

/** A new trace directory, owner only: traces can hold secrets (replay keeps raw crypto bytes). */
function createOutDir(dir: string): void {
  try {
    makeDirectory(dir);
  } catch (error) {
    throw new CliError('ERR_OUT_DIR', `--out ${dir} cannot be created: ${(error as Error).message}`, { cause: error });
  }
}

/** A path as the user can type it from the cwd: relative below it, absolute elsewhere. */
export function displayPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  const outside = rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  return rel === '' || outside ? file : rel;
}
