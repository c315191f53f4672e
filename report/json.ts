import type { Report } from './types.js';
import { jsonText } from './untrusted.js';

/**
 * The JSON contract (`schema: "detdrift.report/1"`): keys in the report's own order, two-space
 * indent, every string exact (untrusted.ts `jsonText`: what could drive a terminal or a CI runner
 * is written as a JSON escape).
 */
export function renderJson(report: Report): string {
  return jsonText(report, 2) + '\n';
}
