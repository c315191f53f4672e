import {
  diffScans,
  scanDirectory,
  ScanDirectoryError,
  type ListedSite,
  type ScanDiff,
  type ScanResult,
  type ScanSite,
} from '../../diffing/scan/index.js';
import { inert, jsonText } from '../../report/untrusted.js';
import type { CommandContext } from '../shared/options.js';
import { CliError } from '../shared/errors.js';
import type { ScanOptions } from './options.js';
import { OriginalFrames } from '../../diffing/source-maps/original.js';
import { describeMapping } from '../../report/describe.js';
import { LineOutput } from '../shared/output.js';
import { displayPath } from '../shared/traces.js';

const SCAN_SCHEMA = 'detdrift.scan/1';
const SCAN_DIFF_SCHEMA = 'detdrift.scan-diff/1';

/**
 * `detdrift scan DIR`: the clock and entropy call sites in a package's JavaScript, one line each
 * (`api  file:line:col`, file relative to DIR). `detdrift scan --diff A B`: the sites B added (`+`)
 * and removed (`-`) relative to A. Files that did not parse or were too large are listed on
 * stderr and do not change the exit status: 0 whenever the scan ran. A package's file names are
 * untrusted: each line is shown `inert`, and JSON written with `jsonText` (report/untrusted.ts).
 */
export async function run(options: ScanOptions, { logger }: CommandContext): Promise<number> {
  if (options.base === null) {
    const result = scan(options.dir, options);
    logger.debug({ root: result.root, files: result.files, sites: result.sites.length }, 'scanned');
    const json = { schema: SCAN_SCHEMA, ...summary(result, options.cwd), sites: result.sites };
    if (options.json) process.stdout.write(jsonText(json, 2) + '\n');
    else await printLines(result.sites.map((site) => ({ sign: '', site, root: result.root })));
    notes(result, options.cwd);
    return 0;
  }
  const a = scan(options.base, options);
  const b = scan(options.dir, options);
  const diff = diffScans(a, b);
  logger.debug(
    { added: diff.added.length, removed: diff.removed.length, changed: diff.changed.length },
    'scans compared',
  );
  if (options.json) {
    const json = { schema: SCAN_DIFF_SCHEMA, a: summary(a, options.cwd), b: summary(b, options.cwd), ...diff };
    process.stdout.write(jsonText(json, 2) + '\n');
  } else {
    await printLines(diffLines(diff, a.root, b.root));
  }
  notes(a, options.cwd);
  notes(b, options.cwd);
  process.stderr.write(
    inert(
      `detdrift: ${name(a, options.cwd)} -> ${name(b, options.cwd)}: ${diff.added.length} added, ${diff.removed.length} removed, ` +
        `${diff.changed.length} changed, ${diff.unchanged} unchanged`,
    ) + '\n',
  );
  return 0;
}

function scan(dir: string, options: ScanOptions): ScanResult {
  try {
    return scanDirectory(dir);
  } catch (error) {
    if (error instanceof ScanDirectoryError)
      throw new CliError('ERR_SCAN_DIR', `${displayPath(dir, options.cwd)}: ${error.problem}`, { cause: error });
    throw error;
  }
}

/** Removed sites (at their place in A) and added ones (in B), merged in file order. */
function diffLines(diff: ScanDiff, rootA: string, rootB: string): Line[] {
  const line =
    (sign: string, root: string) =>
    ({ copies, ...site }: ListedSite) => ({ sign, site, copies, root });
  const lines = [...diff.removed.map(line('-', rootA)), ...diff.added.map(line('+', rootB))];
  return lines.sort((x, y) => {
    const { site: a } = x;
    const { site: b } = y;
    if (a.file !== b.file) return a.file < b.file ? -1 : 1;
    return (
      a.line - b.line ||
      a.column - b.column ||
      (x.sign < y.sign ? 1 : x.sign > y.sign ? -1 : 0) ||
      (a.api < b.api ? -1 : a.api > b.api ? 1 : 0)
    );
  });
}

/** A site to print, with the directory scanned: its files' source maps are read from there. */
interface Line {
  readonly sign: string;
  readonly site: ScanSite;
  /** the same site in the version's other builds, said after it */
  readonly copies?: readonly ScanSite[];
  readonly root: string;
}

/** `api  file:line:col`, at the original source position where the file's source map gives one. */
async function printLines(lines: readonly Line[]): Promise<void> {
  const width = Math.max(0, ...lines.map(({ site }) => site.api.length));
  const out = new LineOutput(process.stdout);
  const originals = new Map<string, OriginalFrames>();
  for (const { sign, site, copies = [], root } of lines) {
    if (!originals.has(root)) originals.set(root, new OriginalFrames(root));
    const at = originals
      .get(root)!
      .frame({ file: site.file, line: site.line, column: site.column, fn: null, package: null });
    const builds =
      copies.length === 0
        ? ''
        : `  (also in ${copies.map((copy) => `${copy.file}:${copy.line}:${copy.column}`).join(', ')})`;
    const text = inert(
      `${sign === '' ? '' : `${sign} `}${site.api.padEnd(width)}  ${at.file}:${at.line}:${at.column}${describeMapping(at)}${builds}`,
    );
    if (out.line(text)) await out.flush();
    if (out.closed) return;
  }
  await out.flush();
}

function summary(result: ScanResult, cwd: string) {
  const { root, package: pkg, files, bytes, errors, skipped } = result;
  return { root: displayPath(root, cwd), package: pkg, files, bytes, errors, skipped };
}

/** What the scan could not see, on stderr: one line per file, then the totals. */
function notes(result: ScanResult, cwd: string): void {
  const lines = [
    ...result.errors.map(
      (error) =>
        `detdrift: ${error.code}: ${name(result, cwd)}: ${error.file}${error.line === null ? '' : `:${error.line}:${error.column}`}: ${error.message}`,
    ),
    ...result.skipped.map(
      (skip) =>
        `detdrift: ${skip.code}: ${name(result, cwd)}: ${skip.file}: ${megabytes(skip.bytes)} is over the ${megabytes(skip.limit)} limit`,
    ),
    `detdrift: ${name(result, cwd)}: ${result.files} files, ${megabytes(result.bytes)}, ${result.sites.length} sites, ` +
      `${result.errors.length} errors, ${result.skipped.length} skipped`,
  ];
  process.stderr.write(lines.map(inert).join('\n') + '\n');
}

function name(result: ScanResult, cwd: string): string {
  return result.package ?? displayPath(result.root, cwd);
}

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(bytes < 1e5 ? 3 : 1)} MB`;
}
