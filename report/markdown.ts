/**
 * Markdown for strings from a trace. Such a string is only ever shown as code: never as HTML,
 * a link, an @mention or formatting. It is shown `inert` (untrusted.ts), so it can never start a
 * line (a heading, a table row, a workflow command); `<!--` gets a word joiner (see `unmarked`).
 */
import { clip } from './text.js';
import { inert } from './untrusted.js';

/** An inline code span; `table: true` also escapes `|`, which GFM splits cells on even inside code. */
export function code(text: string, options: { table?: boolean; max?: number } = {}): string {
  let body = unmarked(clip(inert(text), options.max ?? 300));
  if (options.table) body = body.replaceAll('|', '\\|');
  if (body === '') return '*(empty)*';
  const fence = '`'.repeat(longestRun(body, '`') + 1);
  // A span that starts or ends with a backtick (or a space on both sides) needs a space of padding.
  const pad = /^[` ]|[` ]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A fenced code block whose fence is longer than any backtick run inside, so nothing closes it early. */
export function codeBlock(lines: readonly string[], info = ''): string {
  const body = lines.map((line) => unmarked(inert(line)));
  const fence = '`'.repeat(Math.max(3, longestRun(body.join('\n'), '`') + 1));
  return [fence + info, ...body, fence].join('\n');
}

/** A table: `header` cells are ours; body cells must already be Markdown (use `code(x, { table: true })`). */
export function table(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  align: readonly ('l' | 'r')[] = [],
): string {
  const rule = header.map((_cell, index) => (align[index] === 'r' ? '---:' : '---'));
  return [header, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** A number we print: anything else that reached a number's place is shown as code. */
export function count(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : code(String(value));
}

/** A workflow finds its comment by its `<!-- detdrift-report -->` marker: a trace string cannot be one. */
function unmarked(text: string): string {
  return text.replaceAll('<!--', '<!\u2060--');
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (const c of text) {
    run = c === char ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}
