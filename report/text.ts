/**
 * The text a report holds as well as shows: a value clipped to a width (the timeline keeps it so)
 * and the names its runs go by. diffing/findings/ writes them into the report; renderers show them.
 */
import type { RunNames, ValueView } from './types.js';

/** A value as the terminal shows it: strings quoted, an output's head with its length and digest. */
export function describeValue(value: ValueView, width = 60, headWidth = width): string {
  if (value !== null && typeof value === 'object' && 'digest' in value) {
    return `${clip(quoted(value.head), headWidth)} (${value.length} bytes, digest ${value.digest})`;
  }
  if (typeof value === 'string') return clip(quoted(value), width);
  return clip(Array.isArray(value) ? `[${value.map(quoted).join(',')}]` : String(value), width);
}

/**
 * A string in double quotes, those inside it escaped. Not JSON.stringify: renderers are handed
 * strings already shown `inert` (untrusted.ts), whose escapes must not be escaped again.
 */
function quoted(text: string): string {
  return `"${text.replaceAll('"', '\\"')}"`;
}

export function clip(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 1) + '…';
}

export const RUN_NAMES: RunNames = Object.freeze({ a: 'run A', b: 'run B' });
/** A dependency bump compares the base's dependency tree (run A) with head's (run B). */
export const BUMP_RUN_NAMES: RunNames = Object.freeze({ a: 'base', b: 'head' });

/** The names a report's runs are shown with: its own, else base and head for a bump, else run A and run B. */
export function runNames(report: { readonly runNames?: RunNames | null; readonly bump?: unknown }): RunNames {
  return report.runNames ?? (report.bump ? BUMP_RUN_NAMES : RUN_NAMES);
}
