import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { Frame } from '../tracer/format.js';

/**
 * A trace is untrusted input: its frame paths may be absolute or climb out with `..`, and what is
 * read lands in reports and pull-request comments. Only files below `root` are read.
 */
export function inside(root: string, file: string): string | null {
  const resolved = resolve(root, file);
  const rel = relative(root, resolved);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !isAbsolute(file) ? resolved : null;
}

/** Where a frame's file is on this disk, with the directory it must stay below; null when it is not here. */
export interface Located {
  readonly file: string;
  /** the project root for the project's own files, the package's directory for a dependency's */
  readonly root: string;
}

/**
 * A frame's file on this disk: project frames are relative to `root`; `name@version/path` frames
 * are looked up among the installs of `name` under `root` (installsOf), at that version only.
 */
export function locate(frame: Pick<Frame, 'file' | 'package'>, root: string): Located | null {
  if (frame.package === null) {
    const file = inside(root, frame.file);
    return file && existsSync(file) ? { file, root } : null;
  }
  const at = frame.package.lastIndexOf('@');
  const packageRoot = installsOf(root, frame.package.slice(0, at)).get(frame.package.slice(at + 1));
  if (packageRoot === undefined) return null;
  const file = inside(packageRoot, frame.file.slice(frame.package.length + 1));
  return file && existsSync(file) ? { file, root: packageRoot } : null;
}

/**
 * The directories under `root` that hold package `name`, by the version their package.json says:
 * `node_modules/name` (npm, yarn, and pnpm's direct dependencies), and pnpm's virtual store, where
 * a transitive package lives (`node_modules/.pnpm/name@1.0.0_peer@2.0.0/node_modules/name`; a
 * scoped name is written `@scope+name` there). Nested npm installs are not searched.
 */
export function installsOf(root: string, name: string): Map<string, string> {
  const found = new Map<string, string>();
  const add = (dir: string | null) => {
    const version = dir === null ? null : versionIn(dir);
    if (version !== null && !found.has(version)) found.set(version, dir!);
  };
  add(inside(root, join('node_modules', name)));
  const store = join(root, 'node_modules', '.pnpm');
  const prefix = `${name.replace('/', '+')}@`;
  let entries: string[] = [];
  try {
    entries = readdirSync(store);
  } catch {
    // no virtual store: not a pnpm tree
  }
  for (const entry of entries) if (entry.startsWith(prefix)) add(inside(store, join(entry, 'node_modules', name)));
  return found;
}

/** The version in `dir/package.json`; null when there is none, or it cannot be read. */
export function versionIn(dir: string): string | null {
  try {
    const version = (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown } | null)
      ?.version;
    return typeof version === 'string' ? version : null;
  } catch {
    return null; // absent or unreadable: not an install of the package
  }
}
