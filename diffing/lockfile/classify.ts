import semver from 'semver';
import { compareText } from './graph.js';

export type ChangeKind = 'major' | 'minor' | 'patch' | 'prerelease' | 'downgrade' | 'added' | 'removed';

export interface Classification {
  readonly kind: ChangeKind;
  readonly breaking: boolean;
}

/**
 * What kind of version change `from` → `to` is, and whether semver lets it break its dependents.
 *
 * `kind` is the literal difference: `downgrade` when `to` is lower (semver.diff would call
 * 2.0.0 → 1.0.0 a major); `prerelease` when `to` is a prerelease, or the release of the
 * prerelease `from` was; else the first of major, minor, patch that differs (a change in build
 * metadata only is a patch). `breaking` is true when `to` is outside `^from`, npm's caret range:
 * every major, a 0.x minor (0.3 → 0.4), a 0.0.x patch, a downgrade, a prerelease of a later
 * version. A version that is not valid semver (a git ref, a local path) cannot be compared: it
 * is a breaking `major`. Added and removed packages are not breaking.
 */
export function classify(from: string | null, to: string | null): Classification {
  if (from === null) return { kind: 'added', breaking: false };
  if (to === null) return { kind: 'removed', breaking: false };
  const a = semver.parse(from);
  const b = semver.parse(to);
  if (!a || !b) return { kind: 'major', breaking: true };
  if (semver.compare(b, a) < 0) return { kind: 'downgrade', breaking: true };
  const breaking = !semver.satisfies(b, `^${a.version}`);
  if (b.prerelease.length > 0) return { kind: 'prerelease', breaking };
  if (a.major !== b.major) return { kind: 'major', breaking };
  if (a.minor !== b.minor) return { kind: 'minor', breaking };
  if (a.patch !== b.patch) return { kind: 'patch', breaking };
  return { kind: a.prerelease.length > 0 ? 'prerelease' : 'patch', breaking };
}

/** Semver order for valid versions (before any invalid one), text order otherwise: a total order. */
export function compareVersions(a: string, b: string): number {
  const left = semver.valid(a);
  const right = semver.valid(b);
  if (left && right) return semver.compare(left, right) || compareText(a, b);
  if (left || right) return left ? -1 : 1;
  return compareText(a, b);
}
