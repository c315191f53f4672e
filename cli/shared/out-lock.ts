/**
 * `--out` belongs to one command at a time: two records, or two checks, sharing one folder would
 * clear and rewrite each other's traces and both say complete. The first takes a lock file in the
 * folder (its host and pid) for as long as it runs; the next is refused while that one runs, and
 * takes over a lock whose owner is gone (a command killed with SIGKILL leaves one behind).
 */
import { openSync, readFileSync, unlinkSync, writeSync, closeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { makeDirectory } from '../../tracer/directory.js';
import { CliError } from './errors.js';
import { LOCK_NAME } from './traces.js';
import { HOST, isRunning } from './workdir.js';

const held = new Set<string>();

/** Takes `dir`'s lock for the rest of this process (created if missing), or throws ERR_OUT_DIR_BUSY. */
export function lockOutDir(dir: string): void {
  if (held.has(dir)) return;
  try {
    makeDirectory(dir);
  } catch (error) {
    throw new CliError('ERR_OUT_DIR', `--out ${dir} cannot be created: ${(error as Error).message}`, { cause: error });
  }
  const file = join(dir, LOCK_NAME);
  if (!create(file)) {
    const owner = readOwner(file);
    if (owner === null || owner.host !== HOST || isRunning(owner.pid)) {
      const who = owner === null ? 'another detdrift command' : `detdrift (pid ${owner.pid})`;
      throw new CliError(
        'ERR_OUT_DIR_BUSY',
        `--out ${dir} is in use by ${who}: wait for it to end, or give another --out (a lock left by a command on another machine is ${file}: delete it if none runs)`,
      );
    }
    unlinkSync(file); // its owner is gone
    if (!create(file)) throw new CliError('ERR_OUT_DIR_BUSY', `--out ${dir} was taken by another detdrift command`);
  }
  held.add(dir);
  if (held.size === 1) process.on('exit', release);
}

function create(file: string): boolean {
  let fd: number;
  try {
    fd = openSync(file, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new CliError('ERR_OUT_DIR', `--out ${dirname(file)} is not writable: ${(error as Error).message}`, {
      cause: error,
    });
  }
  try {
    writeSync(fd, `${HOST}:${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

function readOwner(file: string): { host: string; pid: number } | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // removed meanwhile, or unreadable: busy, to be safe
  }
  const match = /^([0-9a-f]{8}):(\d+)\n$/.exec(text);
  return match ? { host: match[1]!, pid: Number(match[2]) } : null;
}

function release(): void {
  for (const dir of held) {
    try {
      unlinkSync(join(dir, LOCK_NAME));
    } catch {
      // gone with its folder (a check's temporary one): nothing left to free
    }
  }
  held.clear();
}
