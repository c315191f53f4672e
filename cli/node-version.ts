import { CliError } from './shared/errors.js';
import { MANIFEST } from './shared/package.js';

/**
 * Refuses a Node.js outside package.json `engines` (20.19+, 22.12+, 24+), which is the one place
 * the supported range is written: the hook relies on `--import`, `module.syncBuiltinESMExports`
 * and V8 call-site details whose behaviour was only checked on those lines. Every command starts
 * here: a release version against a range of `^A.B.C` and `>=A.B.C` alternatives (how engines is
 * written) is decided without semver, whose parser costs a start 2 ms; anything else (a nightly's
 * prerelease, another form of range) is semver's to decide.
 */
export async function checkNodeVersion(version: string, range: string = MANIFEST.engines.node): Promise<void> {
  const verdict =
    simplySatisfies(version, range) ??
    // the one function, not semver's index: that loads all of semver, twice the start-up of `node -e 0`
    (await import('semver/functions/satisfies.js')).default(version, range);
  if (verdict) return;
  throw new CliError('ERR_NODE_VERSION', `Node.js ${version} is not supported: detdrift needs Node.js ${range}`);
}

const RELEASE = /^(\d+)\.(\d+)\.(\d+)$/;
const SIMPLE = /^(\^|>=)(\d+)\.(\d+)\.(\d+)$/;

/** Whether `version` satisfies `range`, or undefined unless both have the simple forms above (`^0.x` has other rules). */
export function simplySatisfies(version: string, range: string): boolean | undefined {
  const release = RELEASE.exec(version);
  if (release === null) return undefined;
  const have = release.slice(1).map(Number) as [number, number, number];
  let satisfied = false;
  for (const alternative of range.split('||')) {
    const simple = SIMPLE.exec(alternative.trim());
    if (simple === null || (simple[1] === '^' && simple[2] === '0')) return undefined;
    const floor = simple.slice(2).map(Number) as [number, number, number];
    satisfied ||= atLeast(have, floor) && (simple[1] === '>=' || have[0] === floor[0]);
  }
  return satisfied;
}

function atLeast(
  [major, minor, patch]: readonly number[],
  [floorMajor, floorMinor, floorPatch]: readonly number[],
): boolean {
  if (major !== floorMajor) return major! > floorMajor!;
  if (minor !== floorMinor) return minor! > floorMinor!;
  return patch! >= floorPatch!;
}
