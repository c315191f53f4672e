// the one function, not semver's index: that loads all of semver, twice the start-up of `node -e 0`
import satisfies from 'semver/functions/satisfies.js';
import { CliError } from './shared/errors.js';
import { MANIFEST } from './shared/package.js';

/**
 * Refuses a Node.js outside package.json `engines` (20.19+, 22.12+, 24+), which is the one place
 * the supported range is written: the hook relies on `--import`, `module.syncBuiltinESMExports`
 * and V8 call-site details whose behaviour was only checked on those lines.
 */
export function checkNodeVersion(version: string, range: string = MANIFEST.engines.node): void {
  if (satisfies(version, range)) return;
  throw new CliError('ERR_NODE_VERSION', `Node.js ${version} is not supported: detdrift needs Node.js ${range}`);
}
