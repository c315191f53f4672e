import type { SiteDef } from '../tracer/format.js';
import { TraceReader, type TraceEvent } from '../tracer/reader.js';
import type { TraceView } from '../platforms/types.js';
import { keysOf } from './keys.js';
import { isCall, isOutput, type Interner, type LoadedTrace } from './load.js';
import { RowTable, Rows, type Slot } from './rows.js';
import { comparable, toSlot } from './slot.js';

/**
 * The trace as `view` sees it (platforms/: traces from two platforms or machines): rows keyed again
 * through `interner` from call sites with portable, project-relative paths and from values with
 * what differs between machines replaced. Each row keeps its event as recorded, and `sites` the
 * paths in their own case, which reports show (a code frame reads the file). The trace is read
 * once more, for the values; only those the view changes are kept.
 */
export function viewTrace(trace: LoadedTrace, view: TraceView, interner: Interner): LoadedTrace {
  const compared = new Map<number, SiteDef>();
  const shown = new Map<number, SiteDef>();
  for (const [id, site] of trace.sites) {
    compared.set(id, view.site(site));
    shown.set(id, view.shown(site));
  }
  const overrides = { calls: new Map<number, Slot>(), outputs: new Map<number, Slot>() };
  const reader = TraceReader.open(trace.file);
  try {
    let calls = 0;
    let outputs = 0;
    for (const event of reader.events()) {
      if (isCall(event)) viewValue(event, calls++, overrides.calls);
      else if (isOutput(event)) viewValue(event, outputs++, overrides.outputs);
    }
  } finally {
    reader.close();
  }
  function viewValue(event: TraceEvent, index: number, into: Map<number, Slot>): void {
    const value = view.value(event);
    if (value === event.value) return;
    const slot = { type: 0, lo: 0, hi: 0 };
    toSlot(value, event.tag, interner, slot);
    into.set(index, slot);
  }
  const viewed = (rows: Rows, changed: Map<number, Slot>) => {
    const kinds = rows.table.parts.kinds.map((kind) => ({
      ...kind,
      ...keysOf(kind.spec, kind.site ? compared.get(kind.site) : undefined, interner),
    }));
    const table = new RowTable({
      ...rows.table.parts,
      kinds,
      overrides: changed,
      compared: (event) => comparable(view.value(event)),
    });
    return new Rows(table);
  };
  return {
    ...trace,
    sites: shown,
    calls: viewed(trace.calls, overrides.calls),
    outputs: viewed(trace.outputs, overrides.outputs),
  };
}
