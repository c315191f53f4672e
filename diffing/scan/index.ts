/** The static scanner: call sites of clock and entropy APIs in a package's JavaScript. Wiring only. */
export { scanDirectory, DEFAULT_MAX_BYTES, ScanDirectoryError, type RanCalls, type ScanOptions } from './directory.js';
export { diffScans, mask } from './diff.js';
export { scanSource, compareSites, type SourceScan } from './source.js';
export { SITE_TABLE, REWRITES, type SiteRule, type Use } from './table.js';
export { IGNORE_HINT, positionKey } from './visitor.js';
export type {
  ListedSite,
  MatchKind,
  ScanDiff,
  ScanError,
  ScanErrorCode,
  ScanResult,
  ScanSite,
  ScanSkip,
} from './types.js';
