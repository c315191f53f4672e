/**
 * The JavaScript files of a package, in a stable order. Left out: nested `node_modules` (other
 * packages, scanned on their own), symbolic links (they lead out of the package or in circles),
 * dot-directories (`.git`, `.cache`), and by default what the package's users never load: its
 * tests, benchmarks and examples (directories `test`, `tests`, `__tests__`, `__mocks__`, `bench`,
 * `benchmark`, `benchmarks`, `example`, `examples` at any depth; files `*.test.js`, `*.spec.js`).
 */
import { readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';

export const EXTENSIONS: readonly string[] = ['.js', '.cjs', '.mjs'];
/**
 * A project's own TypeScript, outside node_modules: a package installed there runs its JavaScript,
 * and the TypeScript some ship beside it would count each site twice. Declarations hold no calls.
 */
const TYPESCRIPT: readonly string[] = ['.ts', '.mts', '.cts', '.tsx'];
const DECLARATION = /\.d\.[mc]?ts$/;
const DEVELOPMENT_DIRECTORIES = new Set([
  'test',
  'tests',
  '__tests__',
  '__mocks__',
  'bench',
  'benchmark',
  'benchmarks',
  'example',
  'examples',
]);
const TEST_FILE = /\.(?:test|spec)\.[cm]?[jt]sx?$/;

export interface WalkOptions {
  readonly includeDevelopment: boolean;
}

/**
 * Paths relative to `root`, `/`-separated, sorted by byte order at every level. A subdirectory
 * that cannot be read goes to `unreadable` and the walk goes on; an unreadable root throws.
 */
export function listFiles(
  root: string,
  options: WalkOptions,
  unreadable: (path: string, error: unknown) => void,
): string[] {
  const files: string[] = [];
  const extensions = /[\\/]node_modules[\\/]/.test(root) ? EXTENSIONS : [...EXTENSIONS, ...TYPESCRIPT];
  const wanted = (name: string) => extensions.some((extension) => name.endsWith(extension)) && !DECLARATION.test(name);
  const visit = (relative: string): void => {
    let entries: Dirent[];
    try {
      entries = readdirSync(relative === '' ? root : join(root, relative), { withFileTypes: true });
    } catch (error) {
      if (relative === '') throw error;
      unreadable(relative, error);
      return;
    }
    const names = entries.map((entry) => entry.name).sort(byteOrder);
    const byName = new Map(entries.map((entry) => [entry.name, entry]));
    for (const name of names) {
      const entry = byName.get(name)!;
      const path = relative === '' ? name : `${relative}/${name}`;
      if (entry.isDirectory()) {
        if (name === 'node_modules' || name.startsWith('.')) continue;
        if (!options.includeDevelopment && DEVELOPMENT_DIRECTORIES.has(name)) continue;
        visit(path);
      } else if (entry.isFile() && wanted(name)) {
        if (!options.includeDevelopment && TEST_FILE.test(name)) continue;
        files.push(path);
      }
    }
  };
  visit('');
  return files;
}

function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
