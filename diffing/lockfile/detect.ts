import { basename } from 'node:path';
import { LockfileError } from './errors.js';
import type { LockfileFormat } from './model.js';
import { LOCKFILE_NAMES } from '../../tracer/settings.js';

/**
 * The format, from the file name, else from the content (a copy named `base.lock`): yarn.lock is
 * berry when it has a `__metadata` entry, classic otherwise.
 */
export function detectFormat(file: string, text: string): LockfileFormat {
  // A git object named `rev:yarn.lock` is named by what follows the colon.
  const name = basename(file).slice(basename(file).lastIndexOf(':') + 1);
  if (name === 'package-lock.json' || name === 'npm-shrinkwrap.json') return 'npm';
  if (name === 'pnpm-lock.yaml') return 'pnpm';
  if (name === 'yarn.lock') return startsLine(text, '__metadata:') ? 'yarn-berry' : 'yarn-classic';
  let first = 0;
  while (first < text.length && ' \t\r\n'.includes(text[first]!)) first++;
  if (text[first] === '{') return 'npm';
  if (startsLine(text, 'lockfileVersion:')) return 'pnpm';
  if (startsLine(text, '__metadata:')) return 'yarn-berry';
  if (text.slice(0, 512).includes('# yarn lockfile v')) return 'yarn-classic';
  throw new LockfileError(
    'ERR_LOCKFILE_FORMAT',
    file,
    null,
    `not a lockfile detdrift knows (${LOCKFILE_NAMES.join(', ')}), by name or content`,
  );
}

function startsLine(text: string, prefix: string): boolean {
  return text.startsWith(prefix) || text.includes(`\n${prefix}`);
}
