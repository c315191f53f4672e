import { existsSync, readFileSync } from 'node:fs';
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
 * are looked up in `root/node_modules/name`, used only when that package has that version.
 */
export function locate(frame: Pick<Frame, 'file' | 'package'>, root: string): Located | null {
  if (frame.package === null) {
    const file = inside(root, frame.file);
    return file && existsSync(file) ? { file, root } : null;
  }
  const at = frame.package.lastIndexOf('@');
  const name = frame.package.slice(0, at);
  const version = frame.package.slice(at + 1);
  const packageRoot = inside(root, join('node_modules', name));
  if (packageRoot === null) return null;
  try {
    const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version?: string };
    if (manifest.version !== version) return null;
  } catch {
    return null;
  }
  const file = inside(packageRoot, frame.file.slice(frame.package.length + 1));
  return file && existsSync(file) ? { file, root: packageRoot } : null;
}
