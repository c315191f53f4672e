import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { CliError } from './errors.js';
import { freeTraces } from './traces.js';

/** This host, shortly: another host's processes (a container sharing the folder) are never judged gone. */
export const HOST = createHash('sha256').update(hostname()).digest('hex').slice(0, 8);
const OWNED = /^detdrift-[a-z]+-([0-9a-f]{8})-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * The temporary directories a command records, replays and checks out in. Each is named for its
 * owner, `detdrift-<kind>-<host>-<pid>-XXXXXX`: a command deletes its own when it ends, however it
 * ends but SIGKILL, and the next command deletes those whose owner on this host is gone. They can
 * hold raw crypto values (check keeps them for replay), which must not outlive the check.
 */
export function makeWorkDir(kind: string, parent = tmpdir()): string {
  sweepOnce(parent);
  try {
    return mkdtempSync(join(parent, `detdrift-${kind}-${HOST}-${process.pid}-`));
  } catch (error) {
    throw new CliError(
      'ERR_TEMP_DIR',
      `cannot make a work folder in ${parent} (the temporary folder, TMPDIR): ${(error as Error).message}; set TMPDIR to a writable folder${kind === 'check' ? ', or give --out' : ''}`,
      { cause: error },
    );
  }
}

/** The folders of `parent` already swept by this process: one look per folder is enough. */
const swept = new Set<string>();

/** Deletes the work folders in `parent` whose owner on this host is no longer running. */
function sweepOnce(parent: string): void {
  if (swept.has(parent)) return;
  swept.add(parent);
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    const owner = OWNED.exec(name);
    if (!owner || owner[1] !== HOST || isRunning(Number(owner[2]))) continue;
    try {
      freeTraces(join(parent, name));
      rmSync(join(parent, name), { recursive: true, force: true });
    } catch {
      // another user's, or going away already: not ours to insist on
    }
  }
}

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, and someone else's
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
