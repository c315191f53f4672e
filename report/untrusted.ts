/**
 * How a string from a trace or a package is shown: package names, versions, file and function
 * names, values, a program's output, code frames. A dependency is untrusted input, and what it
 * names reaches terminals, CI logs, job summaries and pull-request comments.
 *
 * Text forms show such a string `inert`: it cannot break a line, drive a terminal or reorder the
 * text around it (control characters, bidirectional controls, line separators become `\n`,
 * `\u001b`, `\u202e`), nor issue a GitHub workflow command (`::` and `##[` are written
 * `:\u003a` and `##\u005b`). JSON forms stay exact data (`jsonText`): the same characters are
 * written as JSON escapes, which a JSON parser reads back as they were.
 */

/**
 * Every character that can break a line or change how the text around it is drawn: C0 controls
 * but tab, DEL, C1 controls (8-bit CSI, OSC and NEL included), U+2028 and U+2029, and the
 * bidirectional marks, embeddings, overrides and isolates (Trojan Source).
 */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** What JSON.stringify leaves raw of UNSAFE: it escapes the C0 controls itself. */
const UNSAFE_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r' };

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** `text` with every UNSAFE character as a visible escape (`\n`, `\r`, `\u001b`, `\u202e`). */
export function visible(text: string): string {
  return String(text).replace(UNSAFE, (char) => NAMED[char] ?? escaped(char));
}

/**
 * `text` as every text form shows it: visible, and with no workflow command in it. The GitHub
 * runner reads `::name::` at the start of a line (after any white space) and `##[name]` anywhere
 * in one; once line breaks are escaped, a string can start a line only where a renderer puts it
 * first, so every `::` is broken, not only a leading one. Applying it twice changes nothing.
 */
export function inert(text: string): string {
  return visible(text).replaceAll('::', ':\\u003a').replaceAll('##[', '##\\u005b');
}

/**
 * A copy of `data` (a report, a matrix, anything JSON-like) with every string in it `inert`: what
 * a text renderer is handed, so that none of its templates can show a trace string raw.
 */
export function inertData<T>(data: T): T {
  if (typeof data === 'string') return inert(data) as T;
  if (Array.isArray(data)) return data.map(inertData) as T;
  if (data === null || typeof data !== 'object') return data;
  return Object.fromEntries(Object.entries(data).map(([key, value]) => [key, inertData(value)])) as T;
}

/**
 * JSON.stringify, with what it leaves raw of UNSAFE, and `##[`, written as `\u` escapes
 * (`inertJson`): the text parses to the very same data.
 */
export function jsonText(value: unknown, space?: number): string {
  return inertJson(JSON.stringify(value, null, space));
}

/**
 * JSON text with what JSON.stringify leaves raw of UNSAFE, and `##[`, written as `\u` escapes. JSON
 * text has `#` and those characters only inside strings, so it parses to the same data, and it
 * cannot drive a terminal or issue a workflow command (no line of it starts with `::`).
 */
export function inertJson(text: string): string {
  return text.replace(UNSAFE_IN_JSON, escaped).replaceAll('##[', '##\\u005b');
}
