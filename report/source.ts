import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import type { FrameView, SourceView } from './types.js';

const CONTEXT_LINES = 2;
const MAX_LINE = 200;

/**
 * The source lines around a frame, read from the project on this disk: project frames are
 * relative to `root`; `name@version/path` frames are looked up in `root/node_modules/name`, used
 * only when that package has that version. Null when the file is not here.
 */
export function sourceOf(frame: FrameView, root: string): SourceView | null {
  const file = locate(frame, root);
  if (!file) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // unreadable source only costs the report its code frame
  }
  const all = text.split(/\r?\n/);
  const first = Math.max(1, frame.line - CONTEXT_LINES);
  const last = Math.min(all.length, frame.line + CONTEXT_LINES);
  const lines: Array<readonly [number, string]> = [];
  for (let line = first; line <= last; line++) lines.push([line, all[line - 1]!.slice(0, MAX_LINE)]);
  return { file: frame.file, line: frame.line, lines };
}

/**
 * A trace is untrusted input: its frame paths may be absolute or climb out with `..`, and a code
 * frame lands in reports and pull-request comments. Only files below the project root are read.
 */
function inside(root: string, file: string): string | null {
  const resolved = resolve(root, file);
  const rel = relative(root, resolved);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && !isAbsolute(file) ? resolved : null;
}

function locate(frame: FrameView, root: string): string | null {
  if (frame.package === null) {
    const file = inside(root, frame.file);
    return file && existsSync(file) ? file : null;
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
  return file && existsSync(file) ? file : null;
}
