import { readFileSync } from 'node:fs';
import { locate } from '../locate.js';
import type { FrameView, SourceView } from '../../report/types.js';

const CONTEXT_LINES = 2;
const MAX_LINE = 200;

/**
 * The source lines around a frame, read from the project on this disk where `locate` finds its
 * file (a dependency's only at the version the frame names). Null when the file is not here.
 */
export function sourceOf(frame: FrameView, root: string): SourceView | null {
  const file = locate(frame, root)?.file;
  if (!file) return null;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null; // unreadable source only costs the report its code frame
  }
  return sourceLines(frame, text);
}

/** The lines around a frame's line in `text`, its file's content (a source map's copy of it, say). */
export function sourceLines(frame: Pick<FrameView, 'file' | 'line' | 'column'>, text: string): SourceView {
  // JavaScript's line terminators, which V8 counts in a stack frame's line number
  const all = text.split(/\r\n|[\n\r\u2028\u2029]/);
  const first = Math.max(1, frame.line - CONTEXT_LINES);
  const last = Math.min(all.length, frame.line + CONTEXT_LINES);
  const lines: Array<readonly [number, string]> = [];
  for (let line = first; line <= last; line++) lines.push([line, all[line - 1]!.slice(0, MAX_LINE)]);
  return { file: frame.file, line: frame.line, column: frame.column, lines };
}
