import type { ContextDef, SiteDef, SourceDef, TraceHeader } from '../tracer/format.js';
import { shownHeld } from '../tracer/held.js';
import { TraceReader, type DecodedEvent, type TraceEnding, type TraceEvent } from '../tracer/reader.js';
import { fileStamp, TraceChunks } from './chunks.js';
import { Column } from './column.js';
import { keysOf } from './keys.js';
import { RowTable, Rows, Word, type RowKind, type Slot } from './rows.js';
import { comparable, toSlot } from './slot.js';

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
  /** source maps the traced process held for code it transformed in memory, by generated file */
  readonly sources: ReadonlyMap<string, SourceDef>;
  /** calls to intercepted sources, in call order */
  readonly calls: Rows;
  /** what the program showed the world: writes, files, checkpoints, exit */
  readonly outputs: Rows;
}

/**
 * Events that are calls to intercepted sources; stderr lines (the program's log) and replay notes
 * (detdrift's) are neither.
 */
export const isCall = (event: { readonly family: string }) =>
  event.family !== 'output' && event.family !== 'log' && event.family !== 'meta';
export const isOutput = (event: { readonly family: string }) => event.family === 'output';

/** Reads a trace into columns keyed through `interner`, so two traces' keys compare by number. */
export function loadTrace(file: string, interner: Interner): LoadedTrace {
  const reader = TraceReader.open(file);
  const chunks = new TraceChunks(file, fileStamp(file));
  const contexts = new ContextKeys(reader, interner);
  const calls = new TableBuilder(reader, interner, contexts, false);
  const outputs = new TableBuilder(reader, interner, contexts, true);
  const tableOf = reader.header.apis.map((row) => (isCall(row) ? calls : isOutput(row) ? outputs : null));
  try {
    reader.scan({
      chunk(start) {
        chunks.starts.push(start);
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
  const compared = (event: TraceEvent) => comparable(shownHeld(event).value);
  return {
    file,
    header: reader.header,
    ending: reader.ending,
    sites: reader.sites,
    contexts: reader.contexts,
    sources: reader.sources,
    calls: new Rows(new RowTable(calls.parts(chunks, isCall, compared))),
    outputs: new Rows(new RowTable(outputs.parts(chunks, isOutput, compared))),
  };
}

/** The rows of a process that a run never started. */
export function noRows(): Rows {
  const parts = {
    kinds: [],
    counts: [],
    columns: new Column(Word.callsBefore + 1),
    chunks: new TraceChunks('', ''),
    firstRows: [],
    overrides: null,
  };
  return new Rows(new RowTable({ ...parts, holds: () => false, compared: () => null }));
}

/** The columns of one table (calls or outputs) as the scan fills them. */
class TableBuilder {
  readonly firstRows: number[] = [];
  private readonly kinds: RowKind[] = [];
  private readonly counts: number[] = [];
  private readonly columns: Column;
  private readonly kindIds = new Map<number, number>();
  private readonly siteIds = new Map<number, number>();
  private readonly slot: Slot = { type: 0, lo: 0, hi: 0 };
  /** by api id: whether its values are crypto values, which may be held (tracer/held.ts) */
  private readonly crypto: readonly boolean[];
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
    this.crypto = reader.header.apis.map((row) => row.family === 'crypto');
  }

  get length(): number {
    return this.columns.length;
  }

  add(decoded: Readonly<DecodedEvent>, callsBefore: number): void {
    const { slot, columns } = this;
    // A crypto value held for replay compares as the digest a trace that holds nothing has.
    const event = this.crypto[decoded.apiId] ? shownHeld({ ...decoded, family: 'crypto' }) : decoded;
    toSlot(event.value, event.tag, this.interner, slot);
    const kind = this.kindOf(event, slot.type);
    this.counts[kind]!++;
    const ctx = this.contexts.key(event.ctx);
    const at = columns.add();
    const words = columns.tail;
    words[at + Word.kind] = kind;
    words[at + Word.ctx] = ctx;
    words[at + Word.lo] = slot.lo;
    words[at + Word.hi] = slot.hi;
    if (this.countCalls) words[at + Word.callsBefore] = callsBefore;
  }

  parts(
    chunks: TraceChunks,
    holds: (event: TraceEvent) => boolean,
    compared: (event: TraceEvent) => number | string | null,
  ) {
    const { kinds, counts, columns, firstRows } = this;
    return { kinds, counts, columns, chunks, firstRows, holds, compared, overrides: null };
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
      this.counts.push(0);
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
