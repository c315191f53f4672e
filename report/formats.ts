/**
 * Every form a report renders to; `detdrift report --format` takes any of them. Apart from render.ts,
 * which loads every renderer: a command's options name the formats without loading one.
 */
export const REPORT_FORMATS = ['terminal', 'json', 'github', 'summary', 'sarif', 'comment', 'html'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];
