import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/** Trace directories hold values that can be secrets (replay keeps raw crypto bytes): owner only. */
const TRACE_DIR_MODE = 0o700;
export const TRACE_FILE_MODE = 0o600;

type Mkdir = (dir: string, mode: number) => unknown;

/**
 * `mkdir -p` with mode 0700 for every directory it creates, walking up at most once per path
 * segment. Not `mkdirSync(dir, { recursive: true })`: on Node 20 to 24 that never returns for a
 * path below /proc (mkdir says ENOENT for a parent that exists, and Node retries forever), and a
 * hook that hangs would break the program it observes. `mkdir` is the hook's saved real one.
 */
export function makeDirectory(dir: string, mkdir: Mkdir = (path, mode) => mkdirSync(path, mode)): void {
  const missing: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    try {
      mkdir(at, TRACE_DIR_MODE);
      break;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') break;
      if (code !== 'ENOENT' || dirname(at) === at) throw error;
      missing.push(at);
    }
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdir(missing[i]!, TRACE_DIR_MODE);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error; // another process made it first
    }
  }
}
