import { codeFrameColumns } from '@babel/code-frame';
import type { SourceView } from './types.js';

/**
 * The code around a blamed call as @babel/code-frame draws it: its lines numbered, the call's line
 * marked `>` and, when the column is known, a `^` under it. `color` highlights the code as
 * JavaScript (a terminal's); the other forms take it plain.
 */
export function codeFrameText(source: SourceView, color = false): string {
  const first = source.lines[0]?.[0] ?? source.line;
  const last = source.lines.at(-1)?.[0] ?? source.line;
  const location = { start: { line: source.line, ...(source.column ? { column: source.column } : {}) } };
  // startLine numbers the window's first line: Babel's own options take it, @types/babel__code-frame does not name it.
  const options = {
    linesAbove: source.line - first,
    linesBelow: last - source.line,
    highlightCode: color,
    forceColor: color,
    startLine: first,
  };
  return codeFrameColumns(source.lines.map(([, text]) => text).join('\n'), location, options);
}
