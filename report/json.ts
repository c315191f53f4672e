import type { Report } from './types.js';

/** The JSON contract (`schema: "detdrift.report/1"`): keys in the report's own order, two-space indent. */
export function renderJson(report: Report): string {
  return JSON.stringify(report, null, 2) + '\n';
}
