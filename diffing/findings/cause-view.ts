/** The report's cause: the blamed call with its stack, value, code frame and stack note, and the bump's section. */
import type { Cause } from '../cause.js';
import type { ProcessComparison } from '../compare.js';
import type { LockfileChange } from '../lockfile/index.js';
import type { LoadedTrace, Row } from '../load.js';
import type { OriginalFrames } from '../source-maps/original.js';
import { askFor, unaskable, type StackOutcome } from '../stacks.js';
import { encodeStacksAt, VARS } from '../../tracer/settings.js';
import type {
  BumpSectionView,
  BumpView,
  CauseView,
  FrameView,
  RunNames,
  SourceView,
  StackNoteView,
} from '../../report/types.js';
import { eventView, partnerOf, type Originals } from './events.js';
import { sourceLines, sourceOf } from './source.js';
import type { BuildOptions } from './build.js';

/** `process`: the one the cause's call was made in (a child's, when it crossed: diffing/crossing.ts). */
export function causeView(
  process: ProcessComparison,
  { cause, confirmed }: { cause: Cause | null; confirmed: boolean },
  names: readonly string[],
  { root, runs }: { readonly root: string; readonly runs: RunNames },
  originals: Originals,
  outcomes: readonly StackOutcome[],
): CauseView | null {
  if (!cause) return null;
  const trace = cause.side === 'a' ? process.a! : process.b!;
  const outcome = cause.row
    ? outcomes.find(({ ask }) => ask.side === cause.side && ask.index === cause.row!.index)
    : undefined;
  const event = cause.row ? eventView(cause.row, trace, names, originals, outcome?.frames ?? undefined) : null;
  const partner = cause.row && cause.kind === 'call' ? partnerOf(process, cause.row, cause.side) : undefined;
  const firstParty = event?.stack.find((frame) => frame.package === null) ?? null;
  const ordering = process.alignment?.ordering;
  return {
    kind: cause.kind,
    api: cause.kind === 'call' ? (event?.api ?? null) : null,
    form: cause.kind === 'call' ? (event?.form ?? null) : null,
    site: event?.site ?? null,
    package: event?.site?.package ?? null,
    firstPartySite: firstParty,
    stack: event?.stack ?? [],
    run: cause.side,
    value:
      partner === undefined || !event
        ? null
        : cause.side === 'a'
          ? { a: event.value, b: partner }
          : { a: partner, b: event.value },
    contexts: cause.kind === 'ordering' && ordering ? [names[ordering.a.ctx]!, names[ordering.b.ctx]!] : null,
    confidence: confirmed ? 'replay-confirmed' : 'heuristic',
    rule: cause.rule,
    source: event?.site ? codeFrame(event.site, root, originals(trace)) : null,
    bump: null,
    stackNote:
      cause.row && trace.calls.kind(cause.row.index).site === 0
        ? stackNote(trace, process.lineage, cause.side, runs[cause.side], cause.row, outcome)
        : null,
    process: cause.row ? { lineage: process.lineage, command: trace.header.command } : null,
  };
}

/** What became of the stack of a blamed call its run did not sample. */
/** `run`: the name the report shows the call's run by (`run A`, `head`). */
function stackNote(
  trace: LoadedTrace,
  lineage: string,
  side: 'a' | 'b',
  run: string,
  row: Row,
  outcome: StackOutcome | undefined,
): StackNoteView {
  const ask = outcome?.ask ?? askFor(trace, lineage, side, row);
  const call = `${run} did not sample the stack of ${ask.api} call #${ask.ordinal} of process ${lineage} (stacks are taken for the first calls of each API, then a sample)`;
  const note = (status: StackNoteView['status'], detail: string): StackNoteView => ({
    status,
    process: lineage,
    ordinal: ask.ordinal,
    stacksAt: encodeStacksAt(ask.at),
    detail,
  });
  if (outcome?.frames) return note('replayed', `${call}; a replay of the run took it`);
  if (outcome)
    return note(
      'not-reproduced',
      `${call}; a replay of the run to take it failed, so no site is shown: ${outcome.reason}`,
    );
  const why = unaskable(ask);
  if (why !== null) return note('not-sampled', `${call}; no re-run can take it: ${why}`);
  const how = `replay ${run} with ${VARS.stacksAt}=${encodeStacksAt(ask.at)} set (\`detdrift replay --out DIR TRACE -- CMD\`, then \`detdrift show DIR\`), or let \`detdrift check\` or \`detdrift bump\` re-run the command, which takes it`;
  return note('not-sampled', `${call}; to take it, ${how}`);
}

/** The lines around a frame: its file on this disk, else the copy its source map holds. */
function codeFrame(site: FrameView, root: string, originals: OriginalFrames): SourceView | null {
  const onDisk = sourceOf(site, root);
  const text = onDisk ? null : originals.sourceText(site);
  return onDisk ?? (text === null ? null : sourceLines(site, text));
}

export function withBump(cause: CauseView | null, change: LockfileChange | null): CauseView | null {
  return cause && change ? { ...cause, bump: bumpView(change) } : cause;
}

function bumpView(change: LockfileChange): BumpView {
  return { name: change.name, from: change.from, to: change.to, kind: change.kind, path: change.path };
}

/** The bump's section; the sites the new versions added at their original positions where the packages ship maps. */
export function bumpSection(
  { verdict, seed, attribution, ownChanges }: NonNullable<BuildOptions['bump']>,
  originals: OriginalFrames,
): BumpSectionView {
  const original = (pkg: string, file: string, line: number, column: number, fn: string | null) => {
    const shown = originals.frame({ file: `${pkg}/${file}`, line, column, fn, package: pkg });
    return {
      file: shown.file.startsWith(`${pkg}/`) ? shown.file.slice(pkg.length + 1) : shown.file,
      line: shown.line,
      column: shown.column,
    };
  };
  return {
    verdict,
    seed,
    ownChanges: ownChanges ?? null,
    changes: attribution.changes.map((change) => ({ ...bumpView(change), direct: change.direct, path: change.path })),
    addedSites: attribution.added.map(({ api, package: pkg, file, line, column, fn, reached, browserOnly }) => ({
      api,
      package: pkg,
      ...original(pkg, file, line, column, fn),
      fn,
      reached,
      browserOnly,
    })),
  };
}
