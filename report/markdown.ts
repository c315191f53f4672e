/**
 * Markdown for strings from a trace. Such a string is only ever shown as code: never as HTML,
 * a link, an @mention or formatting. Line breaks and control characters become visible escapes,
 * so one can never start a line (a heading, a table row, a workflow command); `##[` and `<!--`
 * get a word joiner (see `inert`).
 */
import { clip } from './describe.js';

/** An inline code span; `table: true` also escapes `|`, which GFM splits cells on even inside code. */
export function code(text: string, options: { table?: boolean; max?: number } = {}): string {
  let body = inert(clip(visible(text), options.max ?? 300));
  if (options.table) body = body.replaceAll('|', '\\|');
  if (body === '') return '*(empty)*';
  const fence = '`'.repeat(longestRun(body, '`') + 1);
  // A span that starts or ends with a backtick (or a space on both sides) needs a space of padding.
  const pad = /^[` ]|[` ]$/.test(body) ? ' ' : '';
  return `${fence}${pad}${body}${pad}${fence}`;
}

/** A fenced code block whose fence is longer than any backtick run inside, so nothing closes it early. */
export function codeBlock(lines: readonly string[], info = ''): string {
  const body = lines.map((line) => inert(visible(line)));
  const fence = '`'.repeat(Math.max(3, longestRun(body.join('\n'), '`') + 1));
  return [fence + info, ...body, fence].join('\n');
}

/** A table: `header` cells are ours; body cells must already be Markdown (use `code(x, { table: true })`). */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>, align: readonly ('l' | 'r')[] = []): string {
  const rule = header.map((_cell, index) => (align[index] === 'r' ? '---:' : '---'));
  return [header, rule, ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}

/** A number we print: anything else that reached a number's place is shown as code. */
export function count(value: unknown): string {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : code(String(value));
}

/** `\n`, `\r`, `\t` and other control characters (and U+2028/2029) as visible escapes. */
export function visible(text: string): string {
  return String(text).replace(/[\u0000-\u001f\u007f\u2028\u2029]/g, (char) => {
    const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/**
 * The runner reads `##[command]` anywhere in a line, and a workflow finds its comment by the
 * `<!-- detdrift-report -->` marker: a word joiner keeps a trace string from being either.
 */
function inert(text: string): string {
  return text.replaceAll('##[', '##\u2060[').replaceAll('<!--', '<!\u2060--');
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

