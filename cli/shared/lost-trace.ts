/**
 * A run whose hook could not write its trace (a full disk, a read-only or vanished folder) must be
 * said as such, never compared: its trace stops early, which a comparison would read as "one run
 * stops early" and blame on the last call recorded. The hook says so on the run's stderr, one line
 * with its code (instrument/recorder.ts report), the file and the system's error.
 */
import { CliError } from './errors.js';

/** The hook's line for a trace it could not create or write, and what the system said. */
const HOOK_LINE =
  /^detdrift: (ERR_DETDRIFT_WRITE|ERR_DETDRIFT_OPEN): (.*) \((?:recording stopped|not recording)[^)]*\)$/m;
/** The system errors that mean the disk or folder refused the bytes, with what to do about each. */
const ADVICE: Readonly<Record<string, string>> = Object.freeze({
  ENOSPC: 'the disk is full: free space, or record with --out on another disk',
  EDQUOT: 'the disk quota is used up: free space, or record with --out on another disk',
  EFBIG: 'the file grew past what the file system allows: record with --out on another disk',
  EROFS: 'the file system is read-only: record with --out on a writable disk',
  EACCES: 'the folder is not writable: record with --out in a writable folder',
  EPERM: 'the folder is not writable: record with --out in a writable folder',
  EIO: 'the disk failed to write',
  ENOENT: 'the trace folder was removed while the run wrote into it',
});
const ERRNO = /\b(E[A-Z]+):/;

/**
 * Throws ERR_TRACE_WRITE when the run recorded into `out` lost its trace for a reason of the disk,
 * from what the hook printed on the run's stderr. Other hook errors are not the disk's: they stay
 * for the verdict to tell.
 */
export function assertTraceWritten(out: string, stderr: string): void {
  const line = HOOK_LINE.exec(stderr);
  const errno = line ? ERRNO.exec(line[2]!)?.[1] : undefined;
  if (!line || errno === undefined || !Object.hasOwn(ADVICE, errno)) return;
  throw new CliError(
    'ERR_TRACE_WRITE',
    `the run recorded into ${out} lost its trace (${line[1]}: ${line[2]}): ${ADVICE[errno]}; nothing was compared`,
  );
}
