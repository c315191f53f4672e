/** How `show` and `record` print a trace: each event (a line, or JSON), each file's heading, how it ended. */
import { Tag, type Frame, type SiteDef, type TraceHeader } from '../tracer/format.js';
import { inert } from './untrusted.js';
import { shownHeld } from '../tracer/held.js';
import { EMPTY_TRACE, type TraceEnding, type TraceEvent, type TraceValue } from '../tracer/reader.js';
import type { ShownFrame } from '../diffing/source-maps/original.js';
import { describeMapping } from './describe.js';

/** How `show` turns a recorded frame into the one it prints: at its original position, where a source map gives it. */
export type FrameShown = (frame: Frame) => ShownFrame;
const asRecorded: FrameShown = (frame) => frame;

/**
 * One event of `show --json`: a stable interface, so keys are never renamed or reordered. The value
 * is JSON-safe: a bigint becomes its decimal string, process.hrtime stays `[seconds, nanoseconds]`,
 * a digest is 16 hex digits (a crypto value held for replay is shown as its digest,
 * tracer/held.ts), a directory listing an array, an output `{digest, length, head}`; `site` is
 * null when no stack was taken; a source-mapped site adds `generated` (where the code ran), one
 * whose map could not be read `sourceMapError`.
 */
export interface EventJson {
  readonly seq: number;
  readonly api: string;
  readonly form: string;
  readonly family: string;
  readonly value: Exclude<TraceValue, bigint | Uint8Array>;
  readonly site: ShownFrame | null;
  readonly ctx: number;
}

export function eventJson(recorded: TraceEvent, sites: ReadonlyMap<number, SiteDef>, shown = asRecorded): EventJson {
  const event = shownHeld(recorded);
  // shownHeld leaves no bytes: only crypto values are ever held
  const value = typeof event.value === 'bigint' ? event.value.toString() : (event.value as EventJson['value']);
  const frame = siteFrame(event, sites, shown);
  const mapping = frame?.generated
    ? { generated: frame.generated }
    : frame?.sourceMapError
      ? { sourceMapError: frame.sourceMapError }
      : {};
  const site = frame && {
    file: frame.file,
    line: frame.line,
    column: frame.column,
    fn: frame.fn,
    package: frame.package,
    ...mapping,
  };
  return { seq: event.seq, api: event.api, form: event.form, family: event.family, value, site, ctx: event.ctx };
}

/**
 * `SEQ  API[ (FORM)]  VALUE  SITE  ctx=ID`, fields apart by two spaces (`new Date` holds one), the
 * whole line `inert` (untrusted.ts): its strings come from the trace.
 */
export function eventLine(recorded: TraceEvent, sites: ReadonlyMap<number, SiteDef>, shown = asRecorded): string {
  const event = shownHeld(recorded);
  const api = event.form === 'call' ? event.api : `${event.api} (${event.form})`;
  const site = siteText(siteFrame(event, sites, shown));
  return inert(`${event.seq}  ${api}  ${textValue(event)}  ${site}  ctx=${event.ctx}`);
}

function textValue(event: TraceEvent): string {
  const value = event.value;
  switch (event.tag) {
    case Tag.none:
      return '-';
    case Tag.bigint:
      return `${value}n`;
    case Tag.hrtime:
    case Tag.list:
    case Tag.string:
    case Tag.chunk:
      return JSON.stringify(value);
    default:
      return String(value); // numbers as JavaScript prints them; a digest is already hex
  }
}

/** The first frame kept; null when the call was sampled out (site 0) or only internal frames remained. */
function siteFrame(event: TraceEvent, sites: ReadonlyMap<number, SiteDef>, shown: FrameShown): ShownFrame | null {
  if (event.site === 0) return null;
  const frame = sites.get(event.site)?.frames[0];
  return frame ? shown(frame) : null;
}

function siteText(frame: ShownFrame | null): string {
  if (frame === null) return '-';
  const at = `${frame.file}:${frame.line}:${frame.column}`;
  // A node_modules file already reads `name@version/path`; say the package only if it does not.
  const named = frame.package && !frame.file.startsWith(`${frame.package}/`) ? `${at} ${frame.package}` : at;
  return named + describeMapping(frame);
}

/**
 * How a trace ended, once its events have been read, then what was wrong with it: for the stderr
 * summaries of show and record. One line: `N events, truncated at byte B (the run stopped
 * mid-write); ERR_TRACE_CORRUPT: bytes F to T skipped: expected ...`.
 */
export function describeEnding(ending: TraceEnding): string {
  const count = `${ending.events} event${ending.events === 1 ? '' : 's'}`;
  const truncation = ending.problems.find((problem) => problem.code === 'ERR_TRACE_TRUNCATED');
  const damaged = ending.problems.some((problem) => problem.code === 'ERR_TRACE_CORRUPT');
  const how = ending.complete
    ? `complete, exit code ${ending.exitCode}`
    : (truncation?.message ??
      (damaged ? 'incomplete: no end record read' : 'incomplete: no end record (the run was killed)'));
  const damage = ending.problems
    .filter((problem) => problem !== truncation)
    .map((problem) => `; ${problem.code}: ${problem.message}`);
  return `${count}, ${how}${damage.join('')}`;
}

/** What `show` and `record` say of a trace file of no bytes, in a directory of traces. */
export const EMPTY_ENDING = `0 events, empty (${EMPTY_TRACE})`;

/** The line that opens each trace when `show` lists a directory, `inert` as an event's line is. */
export function headingLine(display: string, header: TraceHeader): string {
  return inert(`== ${display}: lineage ${header.lineage}: ${header.command.join(' ')}`);
}

export function headingJson(display: string, header: TraceHeader): object {
  return { trace: display, lineage: header.lineage, command: header.command };
}
