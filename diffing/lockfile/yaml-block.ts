/** YAML block scalars: `|` keeps line breaks, `>` folds them; `-` strips the final ones, `+` keeps them all. */
import { excerpt } from './errors.js';
import type { Fail } from './yaml-inline.js';

export interface BlockScalar {
  readonly value: string;
  /** the first line after the scalar */
  readonly end: number;
}

/**
 * The block scalar whose header is at `start` of `line`, in a node at `column`: its lines are the
 * blank ones and those indented deeper than `column` (by the header's digit, or as the first one is).
 */
export function scanBlockScalar(lines: readonly string[], line: number, start: number, column: number, fail: Fail): BlockScalar {
  const header = withoutComment(lines[line]!.slice(start));
  // Anchored, with bounded groups: fails after a few characters on any input.
  const match = /^([|>])([+-]?)([1-9]?)$|^([|>])([1-9])([+-])$/.exec(header);
  if (!match) return fail(start, `a block scalar header ${excerpt(header, 20)} is not valid`);
  const folded = (match[1] ?? match[4]) === '>';
  const chomp = match[2] ?? match[6] ?? '';
  const explicit = match[3] || match[5];
  let indent = explicit ? column + Number(explicit) : 0;
  const body: string[] = [];
  let end = line + 1;
  for (; end < lines.length; end++) {
    const text = lines[end]!;
    const own = countSpaces(text);
    if (own === text.length) {
      body.push('');
      continue;
    }
    if (indent === 0) indent = own > column ? own : column + 1;
    if (own < indent) break;
    body.push(text.slice(indent));
  }
  let trailing = 0;
  while (trailing < body.length && body[body.length - 1 - trailing] === '') trailing++;
  const content = body.slice(0, body.length - trailing);
  if (content.length === 0) return { value: chomp === '+' ? '\n'.repeat(trailing) : '', end };
  const joined = folded ? fold(content) : content.join('\n');
  return { value: joined + (chomp === '-' ? '' : chomp === '+' ? '\n'.repeat(trailing + 1) : '\n'), end };
}

export function countSpaces(text: string): number {
  let i = 0;
  while (text[i] === ' ') i++;
  return i;
}

/** The text before a ` #` comment, trimmed at its end. */
function withoutComment(text: string): string {
  for (let i = 1; i < text.length; i++) if (text[i] === '#' && (text[i - 1] === ' ' || text[i - 1] === '\t')) return text.slice(0, i).trimEnd();
  return text.trimEnd();
}

/** Folded lines: a line break becomes a space, an empty line a line break, more-indented lines keep theirs. */
function fold(lines: readonly string[]): string {
  let out = '';
  let start = 0;
  for (; start < lines.length && lines[start] === ''; start++) out += '\n';
  for (let i = start; i < lines.length; i++) {
    const line = lines[i]!;
    const previous = lines[i - 1]!;
    if (i > start) out += line === '' ? '\n' : previous === '' ? '' : line.startsWith(' ') || previous.startsWith(' ') ? '\n' : ' ';
    out += line;
  }
  return out;
}
