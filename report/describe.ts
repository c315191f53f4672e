/**
 * Plain-text pieces the GitHub, SARIF and Markdown renderers share. Every string here may come
 * from a trace (a dependency is untrusted input): callers escape the result for their syntax.
 */
import type {
  BumpSectionView,
  BumpView,
  CauseView,
  ConfirmationView,
  EventView,
  FailureView,
  FrameView,
  NextStepView,
  OrderingView,
  Report,
  RunNames,
  WarmupView,
} from './types.js';
import { RUN_NAMES } from './text.js';

/**
 * `file:line:column fn`; with `mapping`, where the code ran when a source map moved it. Why a map
 * was not read is always said: the position shown is then the generated one.
 */
export function describeFrame(frame: FrameView, mapping = false): string {
  const detail = mapping || !frame.generated ? describeMapping(frame) : '';
  return `${frame.file}:${frame.line}:${frame.column}${frame.fn ? ` ${frame.fn}` : ''}${detail}`;
}

/** ` (generated: file:line:column)` for a source-mapped frame, ` (source map not read: why)`, or nothing. */
export function describeMapping(frame: FrameView): string {
  if (frame.generated) return ` (generated: ${frame.generated.file}:${frame.generated.line}:${frame.generated.column})`;
  return frame.sourceMapError ? ` (source map not read: ${frame.sourceMapError})` : '';
}

/**
 * `async callbacks X and Y finished in a different order (1 call made in the other's callback)`:
 * how runs that agree differ. `name` formats a context for the renderer's syntax.
 */
export function describeOrdering(ordering: OrderingView, name = (context: string) => context): string {
  const { moved: count, process } = ordering;
  const moved = count ? ` (${count} ${count === 1 ? 'call' : 'calls'} made in the other's callback)` : '';
  const where = process !== undefined && process !== '0' ? ` of process ${name(process)}` : '';
  return `${describeContexts(ordering.contexts, name)}${where} finished in a different order${moved}`;
}

/** `async callbacks X and Y`, or `top-level code and async callback Y`: an ordering's two contexts. */
export function describeContexts(contexts: readonly string[], name = (context: string) => context): string {
  const [x = '?', y = '?'] = contexts;
  if (x !== 'root' && y !== 'root') return `async callbacks ${name(x)} and ${name(y)}`;
  return `${describeContext(x, name)} and ${describeContext(y, name)}`;
}

/**
 * `a first run, not compared, filled the caches of jest (named by the command)`: the warm-up run of a
 * check or a bump, and why it was made. `name` formats a runner's name for the renderer's syntax.
 */
export function describeWarmup(warmup: WarmupView, name = (runner: string) => runner): string {
  const whose = warmup.runners.length > 0 ? ` of ${warmup.runners.map(name).join(' and ')}` : '';
  const why = { command: 'named by the command', traces: "seen in the run's stacks", option: '--warmup on' }[
    warmup.found
  ];
  const trees = warmup.trees ? ` in ${warmup.trees.join(' and ')}` : '';
  return `a first run${trees}, not compared, filled the caches${whose} (${why})`;
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
  const candidates =
    cause?.kind === 'call'
      ? [cause.firstPartySite, cause.site]
      : [report.firstDivergence?.a?.site, report.firstDivergence?.b?.site];
  return (
    candidates.find((frame): frame is FrameView => frame !== null && frame !== undefined && frame.package === null) ??
    null
  );
}

/**
 * `tick-queue 1.0.0 → 1.1.0 (minor)`; an added or removed dependency says so, and a transitive one
 * names the chain it comes through: `left-pad 1.2.0 → 1.3.0 (minor, through app-dep > left-pad)`.
 */
export function describeBump(bump: BumpView): string {
  const change =
    bump.from === null
      ? `added at ${bump.to ?? '?'}`
      : bump.to === null
        ? `removed (was ${bump.from})`
        : `${bump.from} → ${bump.to}`;
  const through = bump.path && bump.path.length > 1 ? `, through ${bump.path.join(' > ')}` : '';
  return `${bump.name} ${change} (${bump.kind}${through})`;
}

/**
 * The dependency `package.json` lists for a bump: the package itself, or the direct dependency a transitive
 * one comes through.
 */
export function manifestDependency(bump: BumpView): string {
  return bump.path?.[0] ?? bump.name;
}

/** What blamed the divergence, in one line: `Math.random in tick-queue@1.1.0`. */
export function describeCulprit(cause: CauseView | null): string {
  if (!cause) return 'the runs diverge';
  if (cause.kind === 'ordering') return 'an ordering difference';
  if (cause.kind === 'outside')
    return cause.bump
      ? `not explained by an intercepted source: ${describeChangedCode(cause.bump)}`
      : 'not explained by an intercepted source';
  return siteUnknown(cause)
    ? `${cause.api ?? '?'} at an unknown call site`
    : `${cause.api ?? '?'} in ${cause.package ?? 'the project'}`;
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

const REASONS: Record<NonNullable<Report['firstDivergence']>['reason'], (names: RunNames) => string> = {
  value: ({ a, b }) => `${a} and ${b} get different values from the same call`,
  structure: ({ a, b }) => `${a} and ${b} make different calls`,
  output: ({ a, b }) => `${a} and ${b} write different output`,
  missing: () => 'one run stops early (it crashed or was killed)',
};

/** `1,204 calls and 18 outputs matched in 3 processes`: what agreed, over every process both runs have. */
export function describeMatched(report: Report, number: (n: number) => string = String): string {
  const { a } = report.runs;
  const matched = report.differences.matched ?? { processes: 1, calls: a?.calls ?? 0, outputs: a?.outputs ?? 0 };
  const where = matched.processes === 1 ? '' : ` in ${number(matched.processes)} processes`;
  return `${number(matched.calls)} calls and ${number(matched.outputs)} outputs matched${where}`;
}

/**
 * Where and how two runs part, in words: `base and head make different calls after 12 recorded
 * calls` (a call index counts the clock, entropy, timer, fs and process calls recorded before it).
 */
export function describeDivergence(
  divergence: NonNullable<Report['firstDivergence']>,
  names: RunNames = RUN_NAMES,
): string {
  const { a, b } = divergence.index;
  // Output is where a reader sees the runs part: the write itself is shown, its position in the calls is noise.
  if (divergence.reason === 'output') return REASONS.output(names);
  const calls = (count: number) => `${count} recorded call${count === 1 ? '' : 's'}`;
  const where =
    a === b ? (a === 0 ? 'right away' : `after ${calls(a)}`) : `after ${calls(a)} in ${names.a} (${b} in ${names.b})`;
  return `${REASONS[divergence.reason](names)} ${where}`;
}

const CONFIDENCE: Record<CauseView['confidence'], string> = {
  heuristic: 'likely: chosen by a rule, not confirmed by a replay',
  'replay-confirmed': 'confirmed by a replay',
};

/**
 * ` (value from the seed)` for a value control mode decided, ` (value from the program's own stub)`, or
 * nothing for a real one.
 */
export function describeControl(controlledBy: EventView['controlledBy']): string {
  return controlledBy === 'detdrift'
    ? ' (value from the seed)'
    : controlledBy === 'program'
      ? " (value from the program's own stub)"
      : '';
}

/** How sure the cause is, in words. */
export function describeConfidence(confidence: CauseView['confidence']): string {
  return CONFIDENCE[confidence] ?? confidence;
}

/**
 * The async context a call ran in: the program's top-level code, or an async callback, named by
 * the key that the chain of callbacks leading to it hashes to (the same in runs that got there alike).
 */
export function describeContext(context: string, name = (key: string) => key): string {
  return context === 'root' ? 'top-level code' : `async callback ${name(context)}`;
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
  const which =
    failed.length === statuses.length
      ? 'every run'
      : `run${failed.length === 1 ? '' : 's'} ${failed.join(', ')} of ${statuses.length}`;
  const ending = failed.length === statuses.length ? ': a failing command is no check of determinism' : '';
  return `the command failed in ${which} (exit ${codes})${ending}`;
}

/** Replay's verdict on the cause, as a sentence: replay pins run A's values. */
export function describeConfirmation(confirmation: ConfirmationView, { a }: RunNames = RUN_NAMES): string {
  const runs = `${confirmation.runs} re-run${confirmation.runs === 1 ? '' : 's'}`;
  switch (confirmation.status) {
    case 'confirmed':
      return `confirmed in ${runs}: pinning ${a}'s first ${confirmation.pinned} of ${confirmation.total} recorded values reproduces it, ${confirmation.pinned! - 1} do not`;
    case 'outside':
      return `pinning all ${confirmation.total} recorded values (${runs}) does not reproduce ${a}: the cause is no clock, random or crypto value`;
    case 'not-reproduced':
      return `could not confirm: a run with no value pinned already reproduced ${a} (${runs}); the divergence did not happen again`;
    case 'unstable':
      return `could not confirm: verdicts flipped or the budget ran out (${runs}); best boundary ${confirmation.pinned} of ${confirmation.total}`;
  }
}

/** Calls per API whose counts differ between the runs, as `Math.random 0 → 197`. */
export function changedCounts(report: Report): string[] {
  return report.differences.perApi.filter((row) => row.a !== row.b).map((row) => `${row.key} ${row.a} → ${row.b}`);
}

/** A next step as a sentence; `literal` marks options, APIs and paths (code spans in Markdown). */
export function describeNextStep(step: NextStepView, literal: (text: string) => string = (text) => text): string {
  const at = (site: FrameView | null) =>
    site ? ` where your code reaches it, at ${literal(`${site.file}:${site.line}`)}` : '';
  switch (step.kind) {
    case 'control-mode':
      return step.job === 'bump'
        ? `leave out ${literal('--mode observe')}: control mode, bump's default, feeds ${literal(step.api)} from the seed and a virtual clock, in your code and in your libraries, so base and head can be compared`
        : `run it in control mode (${literal('--mode control')}): detdrift then feeds ${literal(step.api)} from the seed and a virtual clock, in your code and in your libraries, so the same seed runs the same`;
    case 'seed-in-code':
      return `give ${step.package ? `${literal(step.package)}'s ` : ''}${literal(step.api)} a seeded source${at(step.site)} (a library option, or a stub in your tests): control mode feeds it, but the call itself moves the values drawn after it`;
    case 'fix-in-code':
      return step.api.startsWith('fs.')
        ? `sort what ${literal(step.api)} lists${at(step.site)}: its order is the file system's, not the seed's`
        : `make ${literal(step.api)}'s order explicit${at(step.site)}: no seed decides which timer or callback runs first`;
    case 'own-code-changed': {
      const shown = step.files.slice(0, 5).map(literal).join(', ');
      const more = step.files.length > 5 ? ` and ${step.files.length - 5} more` : '';
      const uncommitted = step.uncommitted > 0 ? `, ${step.uncommitted} uncommitted` : '';
      return `head's own code changed too (${shown}${more}${uncommitted}): the dependency bump may not be all that changed the run`;
    }
    case 'outside':
      return `the runs part where nothing detdrift intercepts decides (a network reply, a child process, native code): start from the nearest I/O, timer and fs calls; ${literal('detdrift check --perturb')} varies what differs between machines`;
  }
}

/**
 * Where a blamed call was made, when not in the process that diverged (`diverged`): `process 0.1
 * (node child.js)`, `worker thread 0.w1`; null when it was made there.
 */
export function describeCauseProcess(cause: CauseView, diverged: string | null): string | null {
  const process = cause.process;
  // a report read from a file is data: a field of the wrong shape names no process
  if (!process || typeof process.lineage !== 'string' || process.lineage === diverged) return null;
  const worker = /^w\d/.test(process.lineage.split('.').pop() ?? '');
  const name = worker ? `worker thread ${process.lineage}` : `process ${process.lineage}`;
  const command = Array.isArray(process.command) ? process.command.map(String).join(' ') : '';
  return `${name}${command && !worker ? ` (${command})` : ''}${diverged === null ? '' : `, whose value crossed into process ${diverged}`}`;
}
