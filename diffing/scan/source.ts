/**
 * Scans one file's source: parse, traverse with the visitor table, collect. A file that does not
 * parse, or that Babel fails to traverse, gives a coded error entry instead of sites: one bad file
 * never ends the scan of a package.
 */
import { parse, type ParserOptions } from '@babel/parser';
import babelTraverse from '@babel/traverse';
import { SourceText } from './site.js';
import { TRIGGER } from './table.js';
import type { ScanError, ScanSite } from './types.js';
import { VISITOR, type Collector } from './visitor.js';

// @babel/traverse is CommonJS with `exports.default`: Node's ESM import gives the exports object.
const traverse = babelTraverse.default;

export interface SourceScan {
  readonly sites: readonly ScanSite[];
  readonly error: ScanError | null;
}

// Tolerant of what published JavaScript contains: JSX, `import ... assert`, top-level return
// (CommonJS) and await (ESM), hashbangs. A TypeScript file (a project's own) is parsed as
// TypeScript, with JSX only in `.tsx` (where `<T>x` would be ambiguous); Flow is not read.
const PARSER: ParserOptions = {
  allowReturnOutsideFunction: true,
  allowAwaitOutsideFunction: true,
  allowSuperOutsideMethod: true,
  allowUndeclaredExports: true,
  plugins: ['jsx', 'deprecatedImportAssert'],
};
const TYPESCRIPT = /\.[mc]?ts$/;

/**
 * `file` names the file in sites and errors; its extension picks the module system. `ran`: calls a
 * run made in this file, by `line:column`, with their API: sites even where the scan cannot tell.
 */
export function scanSource(code: string, file: string, ran?: ReadonlyMap<string, string>): SourceScan {
  if (!ran?.size && !TRIGGER.test(code)) return { sites: [], error: null };
  let ast;
  try {
    ast = parse(code, { ...PARSER, sourceType: sourceType(file), plugins: plugins(file) });
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    return {
      sites: [],
      error: failure('ERR_SCAN_PARSE', file, error, loc ? { line: loc.line, column: loc.column + 1 } : null),
    };
  }
  const collector: Collector = { source: new SourceText(code, file), sites: [], ran };
  try {
    traverse(ast, VISITOR, undefined, collector);
  } catch (error) {
    const loc = (error as { loc?: { line: number; column: number } }).loc;
    return {
      sites: [],
      error: failure('ERR_SCAN_TRAVERSE', file, error, loc ? { line: loc.line, column: loc.column + 1 } : null),
    };
  }
  return { sites: collector.sites.sort(compareSites), error: null };
}

function plugins(file: string): ParserOptions['plugins'] {
  if (TYPESCRIPT.test(file)) return ['typescript', 'deprecatedImportAssert'];
  return file.endsWith('.tsx') ? ['typescript', 'jsx', 'deprecatedImportAssert'] : PARSER.plugins;
}

function sourceType(file: string): ParserOptions['sourceType'] {
  if (file.endsWith('.mjs') || file.endsWith('.mts')) return 'module';
  if (file.endsWith('.cjs') || file.endsWith('.cts')) return 'script';
  return 'unambiguous';
}

export function failure(
  code: ScanError['code'],
  file: string,
  error: unknown,
  at: { line: number; column: number } | null,
): ScanError {
  // Babel appends the position to its messages: `Unexpected token (3:5)`; the entry has it apart.
  const message = (error instanceof Error ? error.message : String(error)).replace(/ \(\d+:\d+\)$/, '');
  return { code, file, line: at?.line ?? null, column: at?.column ?? null, message };
}

/** File (byte order), line, column, api: the same sites always print in the same order. */
export function compareSites(a: ScanSite, b: ScanSite): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  if (a.line !== b.line) return a.line - b.line;
  if (a.column !== b.column) return a.column - b.column;
  return a.api < b.api ? -1 : a.api > b.api ? 1 : 0;
}
