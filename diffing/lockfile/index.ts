/** The lockfile diff (DESIGN.md, Localizing, step 6): read any lockfile, diff two, classify with semver. */
export { classify, compareVersions, type ChangeKind, type Classification } from './classify.js';
export { detectFormat } from './detect.js';
export { diffLockfiles, type LockfileChange } from './diff.js';
export { LockfileError, type LockfileErrorCode, type Position } from './errors.js';
export type { LockedEdge, LockedImporter, LockedPackage, Lockfile, LockfileFormat } from './model.js';
export { MAX_LOCKFILE_BYTES, parseLockfile, readLockfile, type ParseOptions } from './read.js';
