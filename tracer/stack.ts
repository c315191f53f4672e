import { dirname, isAbsolute, relative, sep } from 'node:path';
import type { Frame, SiteDef } from './format.js';
import {
  DecodeURIComponent,
  ObjectHasOwn,
  SafeMap,
  StringIncludes,
  StringIndexOf,
  StringLastIndexOf,
  StringReplaceAll,
  StringSlice,
  StringSplit,
  StringStartsWith,
} from './primordials.js';

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
  /**
   * frameFile's answers so far, by the name V8 gives the script (a SafeMap, when given): stacks
   * come from a few hundred files, and writing one (a URL decoded, `relative`, its package found)
   * cost 3-5 µs a frame, 150 µs a new stack of 32 frames.
   */
  readonly files?: Map<string, KeptFile | null>;
}

export interface KeptFile {
  readonly file: string;
  readonly package: string | null;
}

/**
 * Turns V8 call sites into a site definition: project-relative paths, `name@version/path` inside
 * node_modules, detdrift's own frames and node's internals counted but left out. It runs inside
 * the traced program, so it calls only saved built-ins (primordials.ts).
 */
export function normalizeStack(raw: readonly RawFrame[], context: StackContext): SiteDef {
  const frames: Frame[] = [];
  let skipped = 0;
  for (let i = 0; i < raw.length; i++) {
    const callSite = raw[i]!;
    const kept = frameFile(callSite.getFileName(), context);
    if (kept === null) {
      skipped++;
      continue;
    }
    if (frames.length === context.depth) break;
    frames[frames.length] = {
      file: kept.file,
      line: callSite.getLineNumber() ?? 0,
      column: callSite.getColumnNumber() ?? 0,
      fn: functionName(callSite),
      package: kept.package,
    };
  }
  return { frames, skipped };
}

/**
 * How a frame of the script V8 names `fileName` is written: its file (project-relative, or
 * `name@version/path` inside node_modules) and package; null for a frame left out (no file,
 * node's own, detdrift's own).
 */
export function frameFile(fileName: string | null | undefined, context: StackContext): KeptFile | null {
  const files = context.files;
  if (files === undefined || typeof fileName !== 'string') return writeFrameFile(fileName, context);
  let kept = files.get(fileName);
  if (kept === undefined) files.set(fileName, (kept = writeFrameFile(fileName, context)));
  return kept;
}

function writeFrameFile(fileName: string | null | undefined, context: StackContext): KeptFile | null {
  const name = toPath(fileName);
  if (name === null || StringStartsWith(name, 'node:') || isOwn(name, context.ownDir)) return null;
  const pkg = StringIncludes(name, NODE_MODULES) ? context.packageOf(name) : null;
  if (pkg) return { file: `${pkg.id}/${toSlashes(relative(pkg.root, name))}`, package: pkg.id };
  return { file: displayPath(name, context.root), package: null };
}

const NODE_MODULES = `${sep}node_modules${sep}`;

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
  return StringStartsWith(fileName, 'file://') ? (filePathOf(fileName) ?? fileName) : fileName;
}

/**
 * The path a `file:` URL names, decoded by hand: node's `fileURLToPath` reads the URL through
 * getters on `URL.prototype`, which the program can replace. Its query and fragment name no part
 * of the path (`import('./mod.mjs?t=1')`: the module is mod.mjs). Null for what names no local
 * path here (a host on POSIX, no drive on Windows, bad percent-encoding, an encoded separator),
 * as `fileURLToPath` refuses.
 */
export function filePathOf(url: string): string | null {
  const rest = beforeTail(StringSlice(url, FILE_SCHEME.length));
  const windows = sep === '\\';
  let path: string;
  if (StringStartsWith(rest, '/')) path = windows ? StringSlice(rest, 1) : rest;
  else if (windows)
    path = `//${rest}`; // file://server/share: a UNC path
  else return null;
  if (windows && !StringStartsWith(path, '//') && !(isLetter(path[0]) && path[1] === ':')) return null;
  if (
    StringIncludes(path, '%2F') ||
    StringIncludes(path, '%2f') ||
    (windows && (StringIncludes(path, '%5C') || StringIncludes(path, '%5c')))
  )
    return null;
  try {
    path = DecodeURIComponent(path);
  } catch {
    return null; // a malformed escape: not a path node would give either
  }
  return windows ? StringReplaceAll(path, '/', '\\') : path;
}

const FILE_SCHEME = 'file://';

/** A URL without its query and fragment. */
function beforeTail(url: string): string {
  const query = StringIndexOf(url, '?');
  const cut = query >= 0 ? StringSlice(url, 0, query) : url;
  const fragment = StringIndexOf(cut, '#');
  return fragment >= 0 ? StringSlice(cut, 0, fragment) : cut;
}

function isLetter(char: string | undefined): boolean {
  return char !== undefined && ((char >= 'A' && char <= 'Z') || (char >= 'a' && char <= 'z'));
}

/**
 * detdrift's own code: below its directory, but not in a node_modules there. A checkout of detdrift
 * keeps the test runners its tests start in its own node_modules, and their frames are the runner's.
 */
function isOwn(file: string, ownDir: string): boolean {
  if (!StringStartsWith(file, ownDir) || (file.length !== ownDir.length && file[ownDir.length] !== sep)) return false;
  return !StringStartsWith(StringSlice(file, ownDir.length), NODE_MODULES);
}

function displayPath(file: string, root: string): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(root, file);
  return StringStartsWith(rel, '..') || isAbsolute(rel) ? toSlashes(file) : toSlashes(rel);
}

function toSlashes(path: string): string {
  return sep === '/' ? path : StringReplaceAll(path, sep, '/');
}

/**
 * Finds the package a node_modules file belongs to: the directory right below the last
 * `node_modules` (two levels for a scope), whose package.json gives name and version.
 * Cached by package directory; `readJson` is the saved real reader.
 */
export function createPackageResolver(readJson: (file: string) => unknown): (file: string) => PackageInfo | null {
  const cache = new SafeMap<string, PackageInfo | null>();
  return (file) => {
    const at = StringLastIndexOf(file, NODE_MODULES);
    if (at < 0) return null;
    const modules = StringSlice(file, 0, at + NODE_MODULES.length);
    const rest = StringSplit(StringSlice(file, at + NODE_MODULES.length), sep);
    const scoped = rest[0] !== undefined && StringStartsWith(rest[0], '@');
    if (rest.length <= (scoped ? 2 : 1)) return null;
    // joined by hand: node's path.join pushes onto an array the program's way
    const root = scoped ? `${modules}${rest[0]!}${sep}${rest[1]!}` : `${modules}${rest[0]!}`;
    let info = cache.get(root);
    if (info === undefined) {
      info = readPackage(root, readJson);
      cache.set(root, info);
    }
    return info;
  };
}

function readPackage(root: string, readJson: (file: string) => unknown): PackageInfo | null {
  const manifest = readJson(`${root}${sep}package.json`);
  const name = ownString(manifest, 'name') ?? StringSlice(root, dirname(root).length + 1);
  const version = ownString(manifest, 'version') ?? '0.0.0';
  return { id: `${name}@${version}`, root };
}

/** A string field of parsed JSON, not looked for on `Object.prototype` when it is missing. */
function ownString(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null || !ObjectHasOwn(value, key)) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
}

/**
 * A site's place as `file:line:column` of its first kept frame, null when it has none: what replay
 * matches calls by, and what tells whether a re-run reached the recorded call.
 */
export function siteKey(def: SiteDef | undefined): string | null {
  const frame = def?.frames[0];
  return frame ? `${frame.file}:${frame.line}:${frame.column}` : null;
}
