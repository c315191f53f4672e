/**
 * A package manager's process around the program (`npm test`, `npx tool`, `pnpm test`, `yarn test`,
 * `corepack pnpm ...`) is a launcher: the hook records nothing in it and patches nothing, so it runs
 * exactly as without the hook, and its children, which inherit NODE_OPTIONS and the hook's
 * variables as they are, take the name it would have had (`npm test` running `node x.js` names it
 * `0`, as `node x.js` alone). The launcher's own nondeterminism (npm lists its logs folder to clean
 * it up, and names its log by the clock) is then nothing to compare or blame.
 */
import { basename, dirname, join } from 'node:path';
import { ArrayIncludes, StringEndsWith, StringSlice, StringStartsWith } from '../tracer/primordials.js';
import { readJsonFile, real } from './real.js';

/**
 * The names a launcher's main script goes by, without `.js`, `.cjs` or `.mjs`: the package managers'
 * bins (`npm-cli.js`, `pnpm.cjs`, `yarn.js`), the links that name them on PATH, and corepack's shims.
 * Read before anything is: a script of another name costs the start no file access.
 */
const SCRIPTS = ['npm', 'npm-cli', 'npx', 'npx-cli', 'pnpm', 'pnpx', 'pn', 'pnx', 'yarn', 'yarnpkg', 'corepack'];

/** The packages whose scripts are launchers, by the name in the script's nearest package.json. */
const PACKAGES = ['npm', 'pnpm', 'yarn', 'corepack', '@yarnpkg/cli-dist'];

const EXTENSIONS = ['.js', '.cjs', '.mjs'];

/**
 * Whether `script` (the main script, `process.argv[1]`) is a package manager's: named as one's bin
 * and, once links are resolved, inside a package of one's; or a Yarn release a project pins
 * (`.yarn/releases/yarn-4.5.0.cjs`, which has no package.json of its own). A script that cannot be
 * resolved is the program's.
 */
export function isLauncher(script: string | undefined): boolean {
  if (script === undefined || script === '') return false;
  const name = withoutExtension(basename(script));
  if (!ArrayIncludes(SCRIPTS, name) && !StringStartsWith(name, 'yarn-')) return false;
  let file: string;
  try {
    file = real.realpathSync(script);
  } catch {
    return false; // no such file: Node will say so, to the program's process
  }
  return isYarnRelease(file) || ArrayIncludes(PACKAGES, nearestPackageName(dirname(file)));
}

function withoutExtension(name: string): string {
  for (let i = 0; i < EXTENSIONS.length; i++) {
    const extension = EXTENSIONS[i]!;
    if (StringEndsWith(name, extension)) return StringSlice(name, 0, name.length - extension.length);
  }
  return name;
}

/** `.yarn/releases/yarn-<version>.cjs`: where Yarn's `yarnPath` (classic's `yarn-path`) keeps the release a project runs. */
function isYarnRelease(file: string): boolean {
  const releases = dirname(file);
  return (
    StringStartsWith(basename(file), 'yarn-') &&
    withoutExtension(basename(file)) !== basename(file) &&
    basename(releases) === 'releases' &&
    basename(dirname(releases)) === '.yarn'
  );
}

/** The `name` in the package.json nearest `dir` (in it or above), or null. */
function nearestPackageName(dir: string): string | null {
  for (let at = dir; ; ) {
    const manifest = readJsonFile(join(at, 'package.json'));
    if (manifest !== null) {
      const name = typeof manifest === 'object' ? (manifest as { name?: unknown }).name : undefined;
      return typeof name === 'string' ? name : null;
    }
    const parent = dirname(at);
    if (parent === at) return null;
    at = parent;
  }
}
