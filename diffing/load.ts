import { bytesToHex } from '../tracer/digest.js';
import { Tag, type ApiRow, type ContextDef, type Frame, type SiteDef, type TraceHeader } from '../tracer/format.js';
import { TraceReader, type DecodedEvent, type TraceEnding, type TraceEvent, type TraceValue } from '../tracer/reader.js';
import type { TraceView } from '../platforms/types.js';
import { Column } from './column.js';
import { RowTable, Rows, TraceChunks, Word, type RowKind, type Slot } from './rows.js';

export type { Row, RowKind } from './rows.js';
export { Rows } from './rows.js';

/** Gives equal strings equal small numbers, shared by the two traces under comparison. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [''];

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }
}

export interface LoadedTrace {
  readonly file: string;
  readonly header: TraceHeader;
  readonly ending: TraceEnding;
  readonly sites: ReadonlyMap<number, SiteDef>;
  readonly contexts: ReadonlyMap<number, ContextDef>;
  /** calls to intercepted sources, in call order */
  readonly calls: Rows;
  /** what the program showed the world: writes, files, checkpoints, exit */
  readonly outputs: Rows;
}

/**
 * How a row's value sits in its two words: a number or a bigint by its bits, a digest by its two
 * halves, anything else (text, listings, outputs) as an interned string. Values of unique draws
 * (clocks, randoms, digests) are never interned: ten million of them would not fit.
 */
export const ValueType = Object.freeze({ none: 0, number: 1, bigint: 2, digest: 3, interned: 4 });

/** Events that are calls to intercepted sources; stderr lines (the program's log) and replay notes (detdrift's) are neither. */
const isCall = (event: { readonly family: string }) => event.family !== 'output' && event.family !== 'log' && event.family !== 'meta';
const isOutput = (event: { readonly family: string }) => event.family === 'output';

/** Reads a trace into columns keyed through `interner`, so two traces' keys compare by number. */
export function loadTrace(file: string, interner: Interner): LoadedTrace {
  const reader = TraceReader.open(file);
  const chunks = new TraceChunks(file);
  const contexts = new ContextKeys(reader, interner);
  const calls = new TableBuilder(reader, interner, contexts, false);
  const outputs = new TableBuilder(reader, interner, contexts, true);
  const tableOf = reader.header.apis.map((row) => (isCall(row) ? calls : isOutput(row) ? outputs : null));
  try {
    reader.scan({
      chunk(offset, seq) {
        chunks.offsets.push(offset);
        chunks.seqs.push(seq);
        calls.firstRows.push(calls.length);
        outputs.firstRows.push(outputs.length);
      },
      event(event) {
        tableOf[event.apiId]?.add(event, calls.length);
      },
    });
  } finally {
    reader.close();
  }
  const compared = (event: TraceEvent) => comparable(event.value);
  return {
    file,
    header: reader.header,
    ending: reader.ending,
    sites: reader.sites,
    contexts: reader.contexts,
    calls: new Rows(new RowTable(calls.parts(chunks, isCall, compared))),
    outputs: new Rows(new RowTable(outputs.parts(chunks, isOutput, compared))),
  };
}

/** The rows of a process that a run never started. */
export function noRows(): Rows {
  const parts = { kinds: [], columns: new Column(Word.callsBefore + 1), chunks: new TraceChunks(''), firstRows: [], overrides: null };
  return new Rows(new RowTable({ ...parts, holds: () => false, compared: () => null }));
}

/** The columns of one table (calls or outputs) as the scan fills them. */
class TableBuilder {
  readonly firstRows: number[] = [];
  private readonly kinds: RowKind[] = [];
  private readonly columns: Column;
  private readonly kindIds = new Map<number, number>();
  private readonly siteIds = new Map<number, number>();
  private readonly slot: Slot = { type: 0, lo: 0, hi: 0 };
  // Consecutive events are mostly of one kind: the last one found skips both map lookups.
  private lastSite = -1;
  private lastLow = -1;
  private lastKind = 0;

  constructor(
    private readonly reader: TraceReader,
    private readonly interner: Interner,
    private readonly contexts: ContextKeys,
    private readonly countCalls: boolean,
  ) {
    this.columns = new Column(countCalls ? Word.callsBefore + 1 : Word.hi + 1);
  }

  get length(): number {
    return this.columns.length;
  }

  add(event: Readonly<DecodedEvent>, callsBefore: number): void {
    const { slot, columns } = this;
    toSlot(event.value, event.tag, this.interner, slot);
    const kind = this.kindOf(event, slot.type);
    const ctx = this.contexts.key(event.ctx);
    const at = columns.add();
    const words = columns.tail;
    words[at + Word.kind] = kind;
    words[at + Word.ctx] = ctx;
    words[at + Word.lo] = slot.lo;
    words[at + Word.hi] = slot.hi;
    if (this.countCalls) words[at + Word.callsBefore] = callsBefore;
  }

  parts(chunks: TraceChunks, holds: (event: TraceEvent) => boolean, compared: (event: TraceEvent) => number | string | null) {
    const { kinds, columns, firstRows } = this;
    return { kinds, columns, chunks, firstRows, holds, compared, overrides: null };
  }

  private kindOf(event: Readonly<DecodedEvent>, type: number): number {
    // Everything but the site fits in 19 bits; sites are numbered densely, so the key stays exact.
    const low = (type << 16) | (event.control << 12) | (event.tag << 8) | event.apiId;
    if (event.site === this.lastSite && low === this.lastLow) return this.lastKind;
    let site = this.siteIds.get(event.site);
    if (site === undefined) this.siteIds.set(event.site, (site = this.siteIds.size));
    const key = site * 2 ** 19 + low;
    let id = this.kindIds.get(key);
    if (id === undefined) {
      id = this.kinds.length;
      this.kindIds.set(key, id);
      const spec = this.reader.header.apis[event.apiId]!;
      const def = event.site ? this.reader.sites.get(event.site) : undefined;
      const { apiId, tag, control, site: siteId } = event;
      this.kinds.push({ id, spec, apiId, tag, control, site: siteId, type, ...keysOf(spec, def, this.interner) });
    }
    this.lastSite = event.site;
    this.lastLow = low;
    this.lastKind = id;
    return id;
  }
}

/** Interned context keys by the trace's context ids; `root` for a context the trace never defined. */
class ContextKeys {
  private readonly keys = new Map<number, number>();
  private lastId = -1;
  private lastKey = 0;

  constructor(
    private readonly reader: TraceReader,
    private readonly interner: Interner,
  ) {}

  key(id: number): number {
    if (id === this.lastId) return this.lastKey;
    let key = this.keys.get(id);
    if (key === undefined) {
      const def = this.reader.contexts.get(id);
      key = this.interner.id(def?.key ?? 'root');
      if (def !== undefined) this.keys.set(id, key);
    }
    this.lastId = id;
    this.lastKey = key;
    return key;
  }
}

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
    const kinds = rows.table.parts.kinds.map((kind) => ({ ...kind, ...keysOf(kind.spec, kind.site ? compared.get(kind.site) : undefined, interner) }));
    const table = new RowTable({ ...rows.table.parts, kinds, overrides: changed, compared: (event) => comparable(view.value(event)) });
    return new Rows(table);
  };
  return { ...trace, sites: shown, calls: viewed(trace.calls, overrides.calls), outputs: viewed(trace.outputs, overrides.outputs) };
}

/** A row's keys: the exact call site, the API alone, and the site as a bump leaves it recognizable. */
function keysOf(spec: ApiRow, site: SiteDef | undefined, interner: Interner): Pick<RowKind, 'key' | 'api' | 'loose'> {
  const name = spec.family === 'output' ? `${spec.api} ${spec.form}` : spec.api;
  return {
    key: interner.id(site ? `${name} @ ${strictSite(site)}` : name),
    api: interner.id(name),
    loose: interner.id(site ? `${name} @ ${looseSite(site)}` : name),
  };
}

/** The call site's own location, with the package version left out so a bump keeps unchanged lines equal. */
function strictSite(site: SiteDef): string {
  const frame = site.frames[0];
  return frame ? `${unversioned(frame)}:${frame.line}:${frame.column}` : '?';
}

function looseSite(site: SiteDef): string {
  const frame = site.frames[0];
  const firstParty = site.frames.find((candidate) => candidate.package === null);
  const where = firstParty ? `${firstParty.file}:${firstParty.line}` : '?';
  return frame ? `${packageName(frame) ?? '.'}#${frame.fn ?? ''}<${where}` : '?';
}

export function packageName(frame: Frame): string | null {
  if (frame.package === null) return null;
  const at = frame.package.lastIndexOf('@');
  return at > 0 ? frame.package.slice(0, at) : frame.package;
}

function unversioned(frame: Frame): string {
  const name = packageName(frame);
  return name === null ? frame.file : name + frame.file.slice(frame.package!.length);
}

const float = new Float64Array(1);
const words = new Uint32Array(float.buffer);
const wide = new BigInt64Array(float.buffer);
const DIGEST = /^[0-9a-f]{16}$/;

/** Puts a value into a slot (ValueType): equal slots are equal values, as `comparable` would tell. */
function toSlot(value: TraceValue, tag: number, interner: Interner, slot: Slot): void {
  slot.lo = 0;
  slot.hi = 0;
  if (value === null) {
    slot.type = ValueType.none;
  } else if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number') float[0] = value;
    else wide[0] = value;
    slot.type = typeof value === 'number' ? ValueType.number : ValueType.bigint;
    slot.lo = words[0]!;
    slot.hi = words[1]!;
  } else if (tag === Tag.digest && typeof value === 'string' && DIGEST.test(value)) {
    slot.type = ValueType.digest;
    slot.hi = parseInt(value.slice(0, 8), 16);
    slot.lo = parseInt(value.slice(8), 16);
  } else {
    slot.type = ValueType.interned;
    slot.lo = interner.id(comparable(value) as string);
  }
}

function comparable(value: TraceValue): number | string | null {
  if (value === null || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) return bytesToHex(value);
  return JSON.stringify(value);
}
