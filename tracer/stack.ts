import { dirname, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Frame, SiteDef } from './format.js';

/** The raw frame V8 hands out; only the fields we read. */
export interface RawFrame {
  getFileName(): string | null | undefined;
  getLineNumber(): number | null;
  getColumnNumber(): number | null;
  getFunctionName(): string | null;
  getMethodName(): string | null;
  getTypeName(): string | null;
}

export interface PackageInfo {
  readonly id: string;
  readonly root: string;
}

export interface StackContext {
  /** the project root: frames below it become relative paths */
  readonly root: string;
  /** detdrift's own install directory: its frames are left out */
  readonly ownDir: string;
  /** the nearest package.json's `name@version` above a node_modules file */
  readonly packageOf: (file: string) => PackageInfo | null;
  /** how many frames to keep */
  readonly depth: number;
}

/**
 * Turns V8 call sites into a site definition: project-relative paths, `name@version/path` inside
 * node_modules, detdrift's own frames and node's internals counted but left out.
 */
export function normalizeStack(raw: readonly RawFrame[], context: StackContext): SiteDef {
  const frames: Frame[] = [];
  let skipped = 0;
  for (const callSite of raw) {
    const name = toPath(callSite.getFileName());
    if (name === null || name.startsWith('node:') || isOwn(name, context.ownDir)) {
      skipped++;
      continue;
    }
    if (frames.length === context.depth) break;
    const pkg = name.includes(`${sep}node_modules${sep}`) ? context.packageOf(name) : null;
    const file = pkg ? `${pkg.id}/${toSlashes(relative(pkg.root, name))}` : displayPath(name, context.root);
    frames.push({
      file,
      line: callSite.getLineNumber() ?? 0,
      column: callSite.getColumnNumber() ?? 0,
      fn: functionName(callSite),
      package: pkg ? pkg.id : null,
    });
  }
  return { frames, skipped };
}

function functionName(callSite: RawFrame): string | null {
  const fn = callSite.getFunctionName();
  if (fn) return fn;
  const method = callSite.getMethodName();
  if (!method) return null;
  const type = callSite.getTypeName();
  return type ? `${type}.${method}` : method;
}

function toPath(fileName: string | null | undefined): string | null {
  if (!fileName) return null;
  if (fileName.startsWith('file://')) {
    try {
      return fileURLToPath(fileName);
    } catch {
      return fileName;
    }
  }
  return fileName;
}

function isOwn(file: string, ownDir: string): boolean {
  return file.startsWith(ownDir) && (file.length === ownDir.length || file[ownDir.length] === sep);
}

function displayPath(file: string, root: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(root, file);
  return rel.startsWith('..') || isAbsolute(rel) ? toSlashes(file) : toSlashes(rel);
}

function toSlashes(path: string): string {
  return sep === '/' ? path : path.split(sep).join('/');
}

/**
 * Finds the package a node_modules file belongs to: the directory right below the last
 * `node_modules` (two levels for a scope), whose package.json gives name and version.
 * Cached by package directory; `readJson` is the saved real reader.
 */
export function createPackageResolver(readJson: (file: string) => unknown): (file: string) => PackageInfo | null {
  const cache = new Map<string, PackageInfo | null>();
  return (file) => {
    const marker = `${sep}node_modules${sep}`;
    const at = file.lastIndexOf(marker);
    if (at < 0) return null;
    const rest = file.slice(at + marker.length).split(sep);
    const depth = rest[0]?.startsWith('@') ? 2 : 1;
    if (rest.length <= depth) return null;
    const root = join(file.slice(0, at + marker.length), ...rest.slice(0, depth));
    let info = cache.get(root);
    if (info === undefined) {
      info = readPackage(root, readJson);
      cache.set(root, info);
    }
    return info;
  };
}

function readPackage(root: string, readJson: (file: string) => unknown): PackageInfo | null {
  const manifest = readJson(join(root, 'package.json')) as { name?: unknown; version?: unknown } | null;
  const fallback = root.slice(dirname(root).length + 1);
  const name = typeof manifest?.name === 'string' ? manifest.name : fallback;
  const version = typeof manifest?.version === 'string' ? manifest.version : '0.0.0';
  return { id: `${name}@${version}`, root };
}

/**
 * A site's place as `file:line:column` of its first kept frame, null when it has none: what replay
 * matches calls by, and what tells whether a re-run reached the recorded call.
 */
export function siteKey(def: SiteDef | undefined): string | null {
  const frame = def?.frames[0];
  return frame ? `${frame.file}:${frame.line}:${frame.column}` : null;
}
