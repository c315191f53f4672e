/**
 * The project's coded errors: the CLI's, the trace reader's, the lockfile readers', the hook's.
 * The code is stable (tests, CI and users match on it): cli/shared/errors.ts turns any of them into one
 * line and an exit status, whatever layer threw it.
 */
export class CodedError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A coded error from the hook itself (its settings, an install step); the runtime reports it once on stderr. */
export class HookError extends CodedError {}

/** Why a trace file was refused. Each code is stable: tests, the CLI and users match on it. */
export type TraceErrorCode =
  | 'ERR_TRACE_READ'
  /**
   * a trace file of no bytes: the run stopped before its first write (a directory of traces reads it as an
   * empty trace)
   */
  | 'ERR_TRACE_EMPTY'
  | 'ERR_TRACE_FOREIGN'
  | 'ERR_TRACE_VERSION'
  | 'ERR_TRACE_HEADER'
  | 'ERR_TRACE_CORRUPT'
  | 'ERR_TRACE_TRUNCATED'
  /** a trace read again for a report (diffing/rows.ts) is not the file that was compared */
  | 'ERR_TRACE_CHANGED';

export class TraceError extends CodedError {
  declare readonly code: TraceErrorCode;
  readonly file: string;
  readonly offset: number;

  constructor(code: TraceErrorCode, file: string, offset: number, expected: string, options?: ErrorOptions) {
    super(code, `${file}: byte ${offset}: ${expected}`, options);
    this.file = file;
    this.offset = offset;
  }
}
