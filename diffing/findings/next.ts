/** What the reader of a report can do next: the steps that fit its verdict, mode and cause. */
import { API_TABLE, type Family } from '../../tracer/apis.js';
import type { NextStepView, Report } from '../../report/types.js';

/** Families control mode feeds from the seed and its virtual clock. */
const SEEDED: ReadonlySet<Family> = new Set(['clock', 'random', 'crypto']);

const familyOf = (api: string): Family | null => API_TABLE.find((spec) => spec.api === api)?.family ?? null;

export function nextSteps(report: Omit<Report, 'next'>): NextStepView[] {
  const steps: NextStepView[] = [];
  const own = report.bump?.ownChanges;
  if (own && report.bump?.verdict !== 'unchanged') steps.push({ kind: 'own-code-changed', ...own });
  if (report.verdict === 'agree') return steps;
  const cause = report.cause;
  if (!cause || cause.kind === 'outside') {
    steps.push({ kind: 'outside' });
    return steps;
  }
  if (cause.kind !== 'call' || cause.api === null) return steps;
  const family = familyOf(cause.api);
  const mode = report.runs.a?.mode;
  if (family !== null && SEEDED.has(family)) {
    if (mode === 'observe') steps.push({ kind: 'control-mode', api: cause.api, job: report.bump ? 'bump' : 'check' });
    else steps.push({ kind: 'seed-in-code', api: cause.api, package: cause.package, site: cause.firstPartySite });
  } else {
    steps.push({ kind: 'fix-in-code', api: cause.api, site: cause.firstPartySite });
  }
  return steps;
}
