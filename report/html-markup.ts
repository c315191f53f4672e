/**
 * HTML from templates in which every interpolated value is text: `html` escapes it unless it is
 * markup that `html` itself built. File names, function names and values come from traces, and a
 * dependency is untrusted input, so nothing from a report can become a tag, an attribute or a
 * script by forgetting to escape it.
 */
import { visible } from './untrusted.js';

/** Markup this module built: interpolated as it is. */
export class Markup {
  constructor(readonly text: string) {}
}

export type Part = Markup | string | number | null | undefined | false | readonly Part[];

/** A tagged template: strings and numbers are escaped, Markup is kept, arrays are joined, null and false vanish. */
export function html(strings: TemplateStringsArray, ...parts: readonly Part[]): Markup {
  let out = strings[0]!;
  for (let i = 0; i < parts.length; i++) out += partText(parts[i]) + strings[i + 1]!;
  return new Markup(out);
}

function partText(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Markup) return part.text;
  if (Array.isArray(part)) return part.map(partText).join('');
  return escapeText(String(part));
}

const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Text for an element or a quoted attribute, its characters `visible` (untrusted.ts): a one-line
 * cell stays one line, and a file name cannot reorder what is shown around it (Trojan Source).
 */
function escapeText(text: string): string {
  return visible(text).replace(/[&<>"']/g, (char) => ENTITIES[char]!);
}
