/** A call as a report shows it: its value, and its stack at the original source positions. */
import type { ProcessComparison } from '../compare.js';
import type { LoadedTrace, Row } from '../load.js';
import { OriginalFrames } from '../source-maps/original.js';
import type { Frame } from '../../tracer/format.js';
import { shownHeld } from '../../tracer/held.js';
import type { EventView, ValueView } from '../../report/types.js';

/** Stacks taken by a re-run, by `side:index` of the call in the diverging process. */
export type Taken = ReadonlyMap<string, readonly Frame[]>;

/** A trace's frames at their original source positions (diffing/source-maps/), one reader of maps per trace. */
export type Originals = (trace: LoadedTrace) => OriginalFrames;

/** One reader of source maps per trace, for the project at `root`. */
export function originalsIn(root: string): Originals {
  const made = new Map<LoadedTrace, OriginalFrames>();
  return (trace) => {
    let originals = made.get(trace);
    if (!originals) made.set(trace, (originals = new OriginalFrames(root, trace.sources)));
    return originals;
  };
}

/** The value the other run saw at the blamed call, when the call was made in both. */
export function partnerOf(process: ProcessComparison, row: Row, side: 'a' | 'b'): ValueView | undefined {
  const pairs = process.alignment?.pairs;
  const partner = side === 'a' ? pairs?.partnerOfA(row.index) : pairs?.partnerOfB(row.index);
  const other = side === 'a' ? process.b : process.a;
  if (partner === undefined || partner < 0 || !other) return undefined;
  return valueView(other.calls.at(partner)!.event);
}

/** `taken`: the stack a re-run took for this call, used when its run did not sample it. */
export function eventView(
  row: Row,
  trace: LoadedTrace,
  names: readonly string[],
  originals: Originals,
  taken?: readonly Frame[],
): EventView {
  const { event } = row;
  const frames = originals(trace).frames((event.site === 0 ? taken : trace.sites.get(event.site)?.frames) ?? []);
  return {
    index: row.index,
    seq: event.seq,
    api: event.api,
    form: event.form,
    value: valueView(event),
    site: frames[0] ?? null,
    stack: frames,
    context: names[row.ctx]!,
    controlledBy: event.control === 1 ? 'detdrift' : event.control === 2 ? 'program' : null,
  };
}

/** A call's value as reports show it: a crypto value held for replay as its digest (tracer/held.ts). */
function valueView(event: Row['event']): ValueView {
  const value = shownHeld(event).value;
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'number') return JSON.stringify(value);
  return value as ValueView;
}
