import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { detectFormat } from './detect.js';
import { LockfileError } from './errors.js';
import { finish } from './graph.js';
import { parseJson } from './json.js';
import type { Lockfile, RawLockfile } from './model.js';
import { readNpm } from './npm.js';
import { readPnpm } from './pnpm.js';
import { checkText, decode } from './text.js';
import { readYarnBerry } from './yarn-berry.js';
import { readYarnClassic } from './yarn-classic.js';

/** Larger than any real lockfile by far, and well inside what a string can hold. */
export const MAX_LOCKFILE_BYTES = 256 * 1024 * 1024;

export interface ParseOptions {
  /**
   * The root package.json (parsed), for yarn lockfiles: yarn classic's direct dependencies and
   * yarn berry's dev flags come from it. Without it, yarn classic takes the packages nothing
   * depends on as direct, and yarn berry marks no package dev. Ignored for npm and pnpm.
   */
  readonly manifest?: unknown;
}

/**
 * Reads a lockfile (and, for yarn, the package.json beside it) into the normalized model.
 * Throws only LockfileError: MISSING, READ, FORMAT, VERSION, PARSE.
 */
export function readLockfile(file: string): Lockfile {
  const text = decode(readBytes(file), file);
  const format = detectFormat(file, text);
  const manifestFile = join(dirname(file), 'package.json');
  const manifest = format.startsWith('yarn') ? readManifest(manifestFile) : undefined;
  return parseAs(format, text, file, manifest);
}

/** Parses lockfile text; `file` names it in errors and decides the format with the content. */
export function parseLockfile(text: string, file: string, options: ParseOptions = {}): Lockfile {
  const checked = checkText(text, file);
  return parseAs(detectFormat(file, checked), checked, file, options.manifest);
}

function parseAs(format: Lockfile['format'], text: string, file: string, manifest: unknown): Lockfile {
  const raw: RawLockfile =
    format === 'npm'
      ? readNpm(text, file)
      : format === 'pnpm'
        ? readPnpm(text, file)
        : format === 'yarn-berry'
          ? readYarnBerry(text, file, manifest)
          : readYarnClassic(text, file, manifest);
  return finish(raw, file);
}

function readBytes(file: string): Buffer {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw ioError(file, error);
  }
  try {
    const stat = fstatSync(fd);
    // A device or a pipe could block, or never end: only a regular file is read.
    if (!stat.isFile()) throw new LockfileError('ERR_LOCKFILE_READ', file, null, 'not a regular file');
    const size = stat.size;
    if (size > MAX_LOCKFILE_BYTES)
      throw new LockfileError(
        'ERR_LOCKFILE_READ',
        file,
        null,
        `${size} bytes: larger than the ${MAX_LOCKFILE_BYTES} a lockfile may have`,
      );
    return readFileSync(fd);
  } catch (error) {
    throw error instanceof LockfileError ? error : ioError(file, error);
  } finally {
    closeSync(fd);
  }
}

function ioError(file: string, error: unknown): LockfileError {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  const missing = code === 'ENOENT' || code === 'ENOTDIR';
  const reason = missing ? 'no such file' : `cannot be read (${code ?? String(error)})`;
  return new LockfileError(missing ? 'ERR_LOCKFILE_MISSING' : 'ERR_LOCKFILE_READ', file, null, reason, {
    cause: error,
  });
}

/** The package.json beside a yarn.lock: absent is fine, unreadable or not JSON is refused. */
function readManifest(file: string): unknown {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') return undefined;
    throw ioError(file, error);
  }
  return parseJson(decode(bytes, file), file);
}
