import { refuse, type Position } from './errors.js';

/**
 * Bytes to text: UTF-8 only, a leading byte-order mark dropped. Binary content (a NUL byte, or
 * bytes that are not UTF-8) is refused at the line where it starts.
 */
export function decode(bytes: Uint8Array, file: string): string {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    // The fatal decoder does not say where; the lenient one marks the first bad byte with U+FFFD.
    const lenient = new TextDecoder('utf-8').decode(bytes);
    refuse(file, positionAt(lenient, Math.max(0, lenient.indexOf('\uFFFD'))), 'not UTF-8 text (binary content?)');
  }
  return checkText(text, file);
}

/** Text as the readers take it: a leading byte-order mark dropped, a NUL byte refused. */
export function checkText(text: string, file: string): string {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const nul = text.indexOf('\0');
  if (nul >= 0) refuse(file, positionAt(text, nul), 'a NUL byte: binary content, not a lockfile');
  return text;
}

/** The 1-based line and column of a character offset. */
function positionAt(text: string, offset: number): Required<Position> {
  let line = 1;
  let start = 0;
  for (let at = text.indexOf('\n'); at >= 0 && at < offset; at = text.indexOf('\n', at + 1)) {
    line++;
    start = at + 1;
  }
  return { line, column: offset - start + 1 };
}

/**
 * The line of the first occurrence of `needle`, for errors about a value JSON.parse already
 * accepted (it keeps no positions); line 1 when the needle is not found.
 */
export function lineOf(text: string, needle: string): Position {
  const at = text.indexOf(needle);
  return { line: at < 0 ? 1 : positionAt(text, at).line };
}
