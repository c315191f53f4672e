/**
 * Scans a package directory (`node_modules/pino`, an unpacked tarball, a project): every
 * JavaScript file `listFiles` keeps, each on its own, so a file that fails is an entry in
 * `errors` and the others still count.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CodedError } from '../../tracer/errors.js';
import { compareSites, failure, scanSource } from './source.js';
import type { ScanError, ScanResult, ScanSite, ScanSkip } from './types.js';
import { listFiles } from './walk.js';

/** Babel parses and traverses about 1 MB/s: a file past this size would hold the scan for seconds. */
export const DEFAULT_MAX_BYTES = 4_000_000;

export interface ScanOptions {
  /** files larger than this many bytes are skipped with a `SKIP_TOO_LARGE` entry (default 4 MB) */
  readonly maxBytes?: number;
  /** also scan the package's tests, benchmarks and examples, which its users never load (default false) */
  readonly includeDevelopment?: boolean;
  /** calls a run made in the package, each a site of its API even where the scan cannot resolve what the code calls */
  readonly ran?: RanCalls;
}

/** Calls a run made, as the runtime resolved them: by file (relative to the root), then `line:column`, the API. */
export type RanCalls = ReadonlyMap<string, ReadonlyMap<string, string>>;

/** The directory to scan does not exist or is not a directory. */
export class ScanDirectoryError extends CodedError {
  readonly dir: string;
  /** what is wrong with `dir`, without naming it */
  readonly problem: string;
  constructor(dir: string, problem: string, options?: ErrorOptions) {
    super('ERR_SCAN_DIR', `${dir}: ${problem}`, options);
    this.dir = dir;
    this.problem = problem;
  }
}

export function scanDirectory(dir: string, options: ScanOptions = {}): ScanResult {
  const root = realRoot(dir);
  const limit = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const sites: ScanSite[] = [];
  const errors: ScanError[] = [];
  const skipped: ScanSkip[] = [];
  let files = 0;
  let bytes = 0;
  const unreadable = (file: string, error: unknown) => errors.push(failure('ERR_SCAN_READ', file, error, null));
  for (const file of listFiles(root, { includeDevelopment: options.includeDevelopment ?? false }, unreadable)) {
    const path = join(root, file);
    let code: string;
    let size: number;
    try {
      size = statSync(path).size;
      if (size > limit) {
        skipped.push({ code: 'SKIP_TOO_LARGE', file, bytes: size, limit });
        continue;
      }
      code = readFileSync(path, 'utf8');
    } catch (error) {
      unreadable(file, error);
      continue;
    }
    files++;
    bytes += size;
    const scan = scanSource(code, file, options.ran?.get(file));
    sites.push(...scan.sites);
    if (scan.error) errors.push(scan.error);
  }
  return { root, package: packageId(root), files, bytes, sites: sites.sort(compareSites), errors, skipped };
}

function realRoot(dir: string): string {
  let root: string;
  try {
    root = realpathSync(dir); // pnpm links node_modules/pkg into its store
  } catch (error) {
    throw new ScanDirectoryError(dir, 'no such directory, or it cannot be read', { cause: error });
  }
  if (!statSync(root).isDirectory()) throw new ScanDirectoryError(dir, 'not a directory');
  return root;
}

/** `name@version` of the root's package.json; null when it has none or it does not say. */
function packageId(root: string): string | null {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  } catch {
    return null; // a directory without a readable manifest is still scanned, just not named
  }
  const { name, version } = (manifest ?? {}) as { name?: unknown; version?: unknown };
  return typeof name === 'string' && typeof version === 'string' ? `${name}@${version}` : null;
}
