/**
 * Opening a file that another job wrote (a trace, a report) so that only a regular file is read:
 * never through a symbolic link, which could point at any file of this machine, and never waiting
 * on a FIFO for a writer. The caller fstats the descriptor and refuses what `kindOf` names.
 */
import { constants, lstatSync, openSync, type Stats } from 'node:fs';

/** Windows has neither flag: a link is refused by lstat there, and a pipe cannot be opened by path. */
const READ_FLAGS =
  process.platform === 'win32' ? constants.O_RDONLY : constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/**
 * A read-only descriptor of `file`, unless its last component is a symbolic link. Throws what
 * openSync throws; a link's error has code ELOOP (`describeOpenError` says it in words).
 */
export function openNoFollow(file: string): number {
  if (process.platform === 'win32' && lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink())
    throw Object.assign(new Error(`ELOOP: a symbolic link, open '${file}'`), { code: 'ELOOP' });
  return openSync(file, READ_FLAGS);
}

/** Why `openNoFollow`, or a read of what it opened, failed: in words that quote nothing of the file. */
export function describeOpenError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return 'it is a symbolic link (name the file it points to)';
  if (code === 'ENOENT') return 'no such file';
  return (error as Error).message;
}

/** What a path that is not a regular file is, for the refusal that names it. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isSocket()) return 'a socket';
  return stats.isCharacterDevice() || stats.isBlockDevice() ? 'a device' : 'neither a file nor a directory';
}
