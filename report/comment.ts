/**
 * A pull-request comment: the summary's verdict, cause and replay command up front, the evidence
 * folded in `<details>`. It starts with a hidden marker, so a workflow can find its earlier comment
 * and update it in place instead of adding one per push.
 */
import { details, fit, heading, overview } from './summary.js';
import type { Report } from './types.js';

export const COMMENT_MARKER = '<!-- detdrift-report -->';

/** GitHub refuses comment bodies over 65,536 characters; this leaves room for a workflow's own lines. */
export const COMMENT_LIMIT = 60_000;

export function renderComment(report: Report, limit = COMMENT_LIMIT): string {
  return fit(
    (limits) => {
      const evidence = details(report, limits, '####');
      const folded =
        evidence.length > 0
          ? ['<details><summary>First divergence, stacks and counts</summary>', ...evidence, '</details>']
          : [];
      return [COMMENT_MARKER, heading(report, '###'), ...overview(report, limits), ...folded].join('\n\n') + '\n';
    },
    limit,
    (text) => text.length,
  );
}
