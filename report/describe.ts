/**
 * Plain-text pieces the GitHub, SARIF and Markdown renderers share. Every string here may come
 * from a trace (a dependency is untrusted input): callers escape the result for their syntax.
 */
import type { BumpSectionView, BumpView, CauseView, ConfirmationView, FailureView, FrameView, OrderingView, Report, ValueView } from './types.js';

/** `file:line:column fn`, with where the code ran when a source map moved it, or why its map was not read */
export function describeFrame(frame: FrameView): string {
  return `${frame.file}:${frame.line}:${frame.column}${frame.fn ? ` ${frame.fn}` : ''}${describeMapping(frame)}`;
}

/** ` (generated: file:line:column)` for a source-mapped frame, ` (source map not read: why)`, or nothing. */
export function describeMapping(frame: FrameView): string {
  if (frame.generated) return ` (generated: ${frame.generated.file}:${frame.generated.line}:${frame.generated.column})`;
  return frame.sourceMapError ? ` (source map not read: ${frame.sourceMapError})` : '';
}

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

/**
 * `async contexts X and Y completed in a different order (1 call made in the other's context)`:
 * how runs that agree differ. `name` formats a context for the renderer's syntax.
 */
export function describeOrdering(ordering: OrderingView, name = (context: string) => context): string {
  const { moved: count, process } = ordering;
  const moved = count ? ` (${count} ${count === 1 ? 'call' : 'calls'} made in the other's context)` : '';
  const where = process !== undefined && process !== '0' ? ` of process ${name(process)}` : '';
  return `async contexts ${ordering.contexts.map(name).join(' and ')}${where} completed in a different order${moved}`;
}

/** `text` opening a sentence: its first letter capitalized. */
export function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
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

/**
 * `tick-queue 1.0.0 → 1.1.0 (minor)`; an added or removed dependency says so, and a transitive one
 * names the chain it comes through: `left-pad 1.2.0 → 1.3.0 (minor, through app-dep > left-pad)`.
 */
export function describeBump(bump: BumpView): string {
  const change =
    bump.from === null ? `added at ${bump.to ?? '?'}` : bump.to === null ? `removed (was ${bump.from})` : `${bump.from} → ${bump.to}`;
  const through = bump.path && bump.path.length > 1 ? `, through ${bump.path.join(' > ')}` : '';
  return `${bump.name} ${change} (${bump.kind}${through})`;
}

/** The dependency `package.json` lists for a bump: the package itself, or the direct dependency a transitive one comes through. */
export function manifestDependency(bump: BumpView): string {
  return bump.path?.[0] ?? bump.name;
}

/** What blamed the divergence, in one line: `Math.random in tick-queue@1.1.0`. */
export function describeCulprit(cause: CauseView | null): string {
  if (!cause) return 'the runs diverge';
  if (cause.kind === 'ordering') return 'an ordering difference';
  if (cause.kind === 'outside') return cause.bump ? `not explained by an intercepted source: ${describeChangedCode(cause.bump)}` : 'not explained by an intercepted source';
  return siteUnknown(cause) ? `${cause.api ?? '?'} at an unknown call site` : `${cause.api ?? '?'} in ${cause.package ?? 'the project'}`;
}

/** A bump whose new code ran where no intercepted call explains the divergence. */
export function describeChangedCode({ name, from, to }: BumpView): string {
  return `the new code of ${name} ${from ?? '(none)'} → ${to ?? '(removed)'} ran on the way, and computes something else from the same intercepted values`;
}

/** The blamed call has no site because its run did not sample the stack: not "in the project". */
export function siteUnknown(cause: CauseView): boolean {
  return cause.site === null && cause.stackNote !== undefined && cause.stackNote !== null;
}

/**
 * The call site's line when its run did not sample the stack: where the site shown came from, or
 * why there is none and how to take it. Null when the run took the stack.
 */
export function describeStackNote(cause: CauseView): string | null {
  return cause.stackNote?.detail ?? null;
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

const BUMP_VERDICTS: Record<BumpSectionView['verdict'], string> = {
  unchanged: 'the bump does not change how this seed runs',
  changed: 'the bump changes how this seed runs, and head still runs it the same way every time',
  'made-nondeterministic': 'the bump made this seed nondeterministic: head runs it differently twice, base did not',
  'already-nondeterministic': 'this seed was already nondeterministic before the bump: base runs it differently twice',
};

/** What a bump did to one seed's run, as a sentence. */
export function describeBumpVerdict(verdict: BumpSectionView['verdict']): string {
  return BUMP_VERDICTS[verdict];
}

/** Which runs of a `check` failed, as a sentence: `the command failed in every run (exit 1)`. */
export function describeFailure({ statuses }: FailureView): string {
  const failed = statuses.flatMap((status, index) => (status === 0 ? [] : [index + 1]));
  const codes = [...new Set(statuses.filter((status) => status !== 0))].join(', ');
  const which = failed.length === statuses.length ? 'every run' : `run${failed.length === 1 ? '' : 's'} ${failed.join(', ')} of ${statuses.length}`;
  const ending = failed.length === statuses.length ? ': a failing command is no check of determinism' : '';
  return `the command failed in ${which} (exit ${codes})${ending}`;
}

/** Replay's verdict on the cause, as a sentence. */
export function describeConfirmation(confirmation: ConfirmationView): string {
  const runs = `${confirmation.runs} re-run${confirmation.runs === 1 ? '' : 's'}`;
  switch (confirmation.status) {
    case 'confirmed':
      return `confirmed in ${runs}: pinning run A's first ${confirmation.pinned} of ${confirmation.total} recorded values reproduces it, ${confirmation.pinned! - 1} do not`;
    case 'outside':
      return `pinning all ${confirmation.total} recorded values (${runs}) does not reproduce run A: the cause is outside the intercepted sources`;
    case 'not-reproduced':
      return `could not confirm: a run with no value pinned already reproduced run A (${runs}); the divergence did not happen again`;
    case 'unstable':
      return `could not confirm: verdicts flipped or the budget ran out (${runs}); best boundary ${confirmation.pinned} of ${confirmation.total}`;
  }
}

/** Calls per API whose counts differ between the runs, as `Math.random 0 → 197`. */
export function changedCounts(report: Report): string[] {
  return report.differences.perApi.filter((row) => row.a !== row.b).map((row) => `${row.key} ${row.a} → ${row.b}`);
}

export function clip(text: string, width: number): string {
  return text.length <= width ? text : text.slice(0, width - 1) + '…';
}
