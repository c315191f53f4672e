import type { SiteDef } from '../tracer/format.js';
import type { TraceEvent, TraceValue } from '../tracer/reader.js';

/** The operating systems detdrift tells apart; any other `process.platform` is read as Linux (POSIX). */
export type PlatformId = 'linux' | 'darwin' | 'win32';

/**
 * What one operating system does to the paths and text a trace holds. Each implementation
 * (linux.ts, darwin.ts, win32.ts) describes its own conventions; normalize.ts applies them.
 */
export interface Platform {
  readonly id: PlatformId;
  /** `os.EOL` there */
  readonly eol: '\n' | '\r\n';
  /** whether its default file system tells two names apart by case alone (ext4 does; NTFS and APFS do not) */
  readonly caseSensitive: boolean;
  /**
   * A path as the platform wrote it, in portable form: `/` separators and a lowercased drive letter
   * (`C:\proj\app.js` becomes `c:/proj/app.js`). A string that is not a path there comes back as it is.
   */
  portable(path: string): string;
  /** whether a portable path is absolute on this platform */
  isAbsolute(path: string): boolean;
  /** temporary directories, matched at the start of a portable path; the match becomes `<tmp>` */
  readonly tempDirs: readonly RegExp[];
  /** home directories, matched the same way; the match becomes `<home>` */
  readonly homeDirs: readonly RegExp[];
  /** checkouts of GitHub-hosted runners (`$GITHUB_WORKSPACE`): the project root when nothing better is known */
  readonly workspaceRoots: readonly RegExp[];
}

/**
 * How one trace is seen when it is compared with a trace from another platform or machine: call
 * sites with portable, project-relative paths, and values with what is expected to differ there
 * replaced. diffing/load.ts keys its rows through a view; the events themselves stay as recorded.
 */
export interface TraceView {
  /** the site as it compares: its files also lowercased when the pair folds case */
  site(def: SiteDef): SiteDef;
  /**
   * the site as reports show it: portable and project-relative, in the case the trace has (a code frame reads
   * the file)
   */
  shown(def: SiteDef): SiteDef;
  /** the value as it compares: the event's own when nothing about it depends on the platform or machine */
  value(event: TraceEvent): TraceValue;
}
