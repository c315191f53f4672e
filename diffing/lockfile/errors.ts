import { CodedError } from '../../tracer/errors.js';

/** Why a lockfile was refused. Each code is stable: tests, the CLI and users match on it. */
export type LockfileErrorCode =
  /** the file does not exist */
  | 'ERR_LOCKFILE_MISSING'
  /** the file exists but cannot be read (a directory, no permission, too large) */
  | 'ERR_LOCKFILE_READ'
  /** neither the file name nor the content says which package manager wrote it */
  | 'ERR_LOCKFILE_FORMAT'
  /** a known format at a version this reader does not support */
  | 'ERR_LOCKFILE_VERSION'
  /** the text does not parse, or parses into something that is not a lockfile */
  | 'ERR_LOCKFILE_PARSE';

/** Where in the file: 1-based line and, when known, 1-based column. */
export interface Position {
  readonly line: number;
  readonly column?: number;
}

export class LockfileError extends CodedError {
  declare readonly code: LockfileErrorCode;
  readonly file: string;
  /** 1-based; 0 when the error is about the whole file (missing, unreadable) */
  readonly line: number;
  readonly column: number | null;

  constructor(code: LockfileErrorCode, file: string, at: Position | null, reason: string, options?: ErrorOptions) {
    const where = at ? `:${at.line}${at.column === undefined ? '' : `:${at.column}`}` : '';
    super(code, `${file}${where}: ${reason}`, options);
    this.file = file;
    this.line = at?.line ?? 0;
    this.column = at?.column ?? null;
  }
}

/** Throws the coded parse error: the one way a reader refuses what it read. */
export function refuse(file: string, at: Position | null, reason: string): never {
  throw new LockfileError('ERR_LOCKFILE_PARSE', file, at, reason);
}

/** A short, printable excerpt of untrusted text for a message. */
export function excerpt(text: string, max = 40): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(cut);
}
