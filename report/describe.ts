/**
 * Plain-text pieces the GitHub, SARIF and Markdown renderers share. Every string here may come
 * from a trace (a dependency is untrusted input): callers escape the result for their syntax.
 */
import type { BumpView, CauseView, FrameView, Report, ValueView } from './types.js';

/** `file:line:column fn` */
export function describeFrame(frame: FrameView): string {
  return `${frame.file}:${frame.line}:${frame.column}${frame.fn ? ` ${frame.fn}` : ''}`;
}

/** A value as the terminal shows it: strings quoted, an output's head with its length and digest. */
export function describeValue(value: ValueView, width = 60): string {
  if (value !== null && typeof value === 'object' && 'digest' in value) {
    return `${clip(JSON.stringify(value.head), width)} (${value.length} bytes, digest ${value.digest})`;
  }
  const text = typeof value === 'string' || Array.isArray(value) ? JSON.stringify(value) : String(value);
  return clip(text, width);
}

/** Two frames at one place: a report read back from JSON has equal frames that are not one object. */
export function sameFrame(x: FrameView | null, y: FrameView | null): boolean {
  return x === y || (x !== null && y !== null && x.file === y.file && x.line === y.line && x.column === y.column);
}

/**
 * Where a reviewer looks: a blamed call's first frame in the project's own code; for any other
 * cause, the project line where the runs first part. Null when there is none.
 */
export function projectFrame(report: Report): FrameView | null {
  const cause = report.cause;
  const candidates = cause?.kind === 'call' ? [cause.firstPartySite, cause.site] : [report.firstDivergence?.a?.site, report.firstDivergence?.b?.site];
  return candidates.find((frame): frame is FrameView => frame !== null && frame !== undefined && frame.package === null) ?? null;
}

/** `tick-queue 1.0.0 → 1.1.0 (minor)`; an added or removed dependency says so. */
export function describeBump(bump: BumpView): string {
  const change =
    bump.from === null ? `added at ${bump.to ?? '?'}` : bump.to === null ? `removed (was ${bump.from})` : `${bump.from} → ${bump.to}`;
  return `${bump.name} ${change} (${bump.kind})`;
}

/** What blamed the divergence, in one line: `Math.random in tick-queue@1.1.0`. */
export function describeCulprit(cause: CauseView | null): string {
  if (!cause) return 'the runs diverge';
  if (cause.kind === 'ordering') return 'an ordering difference';
  if (cause.kind === 'outside') return 'not explained by an intercepted source';
  return `${cause.api ?? '?'} in ${cause.package ?? 'the project'}`;
}

/** `structure at call #0 of run A, #0 of run B` */
export function describeDivergence(divergence: NonNullable<Report['firstDivergence']>): string {
  return `${divergence.reason} at call #${divergence.index.a} of run A, #${divergence.index.b} of run B`;
}

/**
 * Where a frame's file is on disk, relative to the project root: a `name@version/path` frame is
 * `node_modules/name/path`; a project frame is its own path.
 */
export function diskPath(frame: FrameView): string {
  if (frame.package === null || !frame.file.startsWith(`${frame.package}/`)) return frame.file;
  const name = frame.package.slice(0, frame.package.lastIndexOf('@'));
  return `node_modules/${name}/${frame.file.slice(frame.package.length + 1)}`;
}

/** A project-relative path as the repository sees it (`prefix` is the project's folder in the repository). */
export function repositoryPath(path: string, prefix: string): string {
  if (path.startsWith('/') || prefix === '' || prefix === '.') return path;
  return `${prefix.replace(/\/+$/, '')}/${path}`;
}

/** Calls per API whose counts differ between the runs, as `Math.random 0 → 197`. */
export function changedCounts(report: Report): string[] {
  return report.differences.perApi.filter((row) => row.a !== row.b).map((row) => `${row.key} ${row.a} → ${row.b}`);
}

export function clip(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 1) + '…';
}
