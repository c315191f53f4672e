/**
 * What a scan finds, kept apart from how the traversal finds it: plain, JSON-ready data that
 * `diffScans` and the report consume without knowing Babel.
 */

/** One call site of a clock or entropy API in a package's source. */
export interface ScanSite {
  /** the canonical API name (`Math.random`, `crypto.randomBytes`, `fs.readdir` for every form) */
  readonly api: string;
  /** relative to the scanned root, with `/` separators */
  readonly file: string;
  /** 1-based */
  readonly line: number;
  /**
   * 1-based, where V8 puts a stack frame of that call (the property of `a.b()`, the `new` of
   * `new Date()`), so a scanned site and a traced site of the same call have the same position
   */
  readonly column: number;
  /** the enclosing functions, outermost first (`Queue > push`); null at the top level of the file */
  readonly fn: string | null;
  /** the source line around the site, trimmed (clipped around the site on a long minified line) */
  readonly snippet: string;
  /**
   * the code around the site with whitespace removed: what `diffScans` matches on when the line
   * numbers have moved; not meant for display
   */
  readonly context: string;
}

export type ScanErrorCode =
  /** the file does not parse as JavaScript (line and column of the parser's complaint) */
  | 'ERR_SCAN_PARSE'
  /** the file parsed, but traversing it failed */
  | 'ERR_SCAN_TRAVERSE'
  /** the file could not be read */
  | 'ERR_SCAN_READ';

/** A file the scan could not read: its sites are unknown, the rest of the package still counts. */
export interface ScanError {
  readonly code: ScanErrorCode;
  readonly file: string;
  /** 1-based; null when the failure has no position (a read error) */
  readonly line: number | null;
  readonly column: number | null;
  readonly message: string;
}

/** A file left out on purpose, and why. */
export interface ScanSkip {
  readonly code: 'SKIP_TOO_LARGE';
  readonly file: string;
  readonly bytes: number;
  readonly limit: number;
}

export interface ScanResult {
  /** absolute, symbolic links resolved */
  readonly root: string;
  /** `name@version` from the root's package.json, null when there is none */
  readonly package: string | null;
  /** JavaScript files read (parsed, or holding none of the names a site needs) */
  readonly files: number;
  /** their total size */
  readonly bytes: number;
  /** sorted by file (byte order), line, column, api */
  readonly sites: readonly ScanSite[];
  readonly errors: readonly ScanError[];
  readonly skipped: readonly ScanSkip[];
}

/**
 * How a site of the old version was matched to one of the new: `function` (same enclosing
 * function, its code edited), `context` (same code, in another function), `masked` (same code
 * once local names are masked: a minifier renamed them), `file` (same function and code, moved to
 * another file), `rebuilt` (same masked code in another file: a rebuilt bundle), `moved` (a
 * function of the same name, its code edited, anywhere: a rewrite that moved its files), `copy`
 * (another build of a matched site: the CommonJS beside the ESM, in either version). Sites
 * matched exactly (same file, function and code) only count as unchanged.
 */
export type MatchKind = 'function' | 'context' | 'masked' | 'file' | 'rebuilt' | 'moved' | 'copy';

/** A site added or removed, listed once for every build of the package that has it. */
export interface ListedSite extends ScanSite {
  /** the same site in the version's other builds (the ESM beside the CommonJS), in source order */
  readonly copies: readonly ScanSite[];
}

export interface ScanDiff {
  /** sites of B matched in A by nothing: what the new version added */
  readonly added: readonly ListedSite[];
  /** sites of A matched in B by nothing */
  readonly removed: readonly ListedSite[];
  /** pairs matched by something weaker than file, function and code together */
  readonly changed: readonly { readonly a: ScanSite; readonly b: ScanSite; readonly match: MatchKind }[];
  /** pairs matched exactly (only their line or column moved) */
  readonly unchanged: number;
}
