import { REPLAYABLE_FAMILIES } from '../tracer/apis.js';
import type { ApiRow } from '../tracer/format.js';
import type { TraceEvent } from '../tracer/reader.js';
import type { TraceChunks } from './chunks.js';
import type { Column } from './column.js';
import { lastAtMost } from './sorted.js';

/** What all rows of one kind share: the call and where it was made, how its value is stored, and its interned keys. */
export interface RowKind {
  readonly id: number;
  /** the api, its form and family, from the trace's api table */
  readonly spec: ApiRow;
  readonly apiId: number;
  readonly tag: number;
  /** who decided the value: Control.none (the real source), .detdrift, .program or .replay */
  readonly control: number;
  /** the call site id in its trace, 0 when no stack was taken */
  readonly site: number;
  /** how the value sits in its row's two words (load.ts ValueType) */
  readonly type: number;
  /** interned `api form @ site` (just the api when no stack was taken): equal keys are the same call */
  readonly key: number;
  /** interned `api` alone, for events whose stack was not taken */
  readonly api: number;
  /** interned site key that survives a version bump: package name without version, function, first project frame */
  readonly loose: number;
}

/** A value as two 32-bit words and how to read them: rows compare values by these, without their events. */
export interface Slot {
  type: number;
  lo: number;
  hi: number;
}

/**
 * One event, reduced to what comparison needs. Rows are made on demand by `Rows.at` (compare them by
 * `index`, not by identity), and `event` is read again from the trace file when asked for.
 */
export interface Row {
  readonly index: number;
  readonly event: TraceEvent;
  readonly key: number;
  readonly api: number;
  readonly loose: number;
  /** interned async context key: the same context has the same key in every run */
  readonly ctx: number;
  /** the value as it compares (through a platforms/ view when there is one), comparable with === */
  readonly value: number | string | null;
}

export interface TableParts {
  readonly kinds: readonly RowKind[];
  /** how many rows of each kind the table has, by kind id */
  readonly counts: readonly number[];
  /**
   * per row, in words: its kind's id, its interned context key, its value (two: Word.lo, Word.hi) and, for
   * outputs, how many calls the trace made before it
   */
  readonly columns: Column;
  readonly chunks: TraceChunks;
  /** per chunk: the index of its first row in this table */
  readonly firstRows: readonly number[];
  /** which events of a chunk are rows of this table */
  readonly holds: (event: TraceEvent) => boolean;
  /** an event's value as it compares (Row.value) */
  readonly compared: (event: TraceEvent) => number | string | null;
  /** values a platforms/ view compares otherwise, by row */
  readonly overrides: ReadonlyMap<number, Slot> | null;
}

/** Where a row's fields sit among its words. */
export const Word = Object.freeze({ kind: 0, ctx: 1, lo: 2, hi: 3, callsBefore: 4 });

/** The rows of one trace as columns: a few words per event, where an event object would take hundreds of bytes. */
export class RowTable {
  readonly length: number;

  constructor(readonly parts: TableParts) {
    this.length = parts.columns.length;
  }

  kind(index: number): RowKind {
    return this.parts.kinds[this.parts.columns.get(index, Word.kind)]!;
  }

  ctx(index: number): number {
    return this.parts.columns.get(index, Word.ctx);
  }

  sameValue(index: number, other: RowTable, otherIndex: number): boolean {
    const mine = this.parts.overrides?.get(index);
    const theirs = other.parts.overrides?.get(otherIndex);
    if (mine === undefined && theirs === undefined) {
      return (
        this.kind(index).type === other.kind(otherIndex).type &&
        this.parts.columns.get(index, Word.lo) === other.parts.columns.get(otherIndex, Word.lo) &&
        this.parts.columns.get(index, Word.hi) === other.parts.columns.get(otherIndex, Word.hi)
      );
    }
    const a = mine ?? this.slot(index);
    const b = theirs ?? other.slot(otherIndex);
    return a.type === b.type && a.lo === b.lo && a.hi === b.hi;
  }

  private slot(index: number): Slot {
    return {
      type: this.kind(index).type,
      lo: this.parts.columns.get(index, Word.lo),
      hi: this.parts.columns.get(index, Word.hi),
    };
  }

  /** The row's event, decoded again from its chunk of the trace file. */
  event(index: number): TraceEvent {
    const { chunks, firstRows, holds } = this.parts;
    const chunk = lastAtMost(firstRows, index);
    const event = chunks.events(chunk).filter(holds)[index - firstRows[chunk]!];
    if (event === undefined || event.apiId !== this.kind(index).apiId) throw chunks.changed(chunk);
    return event;
  }
}

/**
 * A list of rows: a whole table, or the rows of it a filter kept (which keep the trace's numbering).
 * Array-like for the few rows a report shows (`length`, `at`, iteration); the comparison reads the
 * columns through `kind`, `ctx` and `sameValue` without making a row.
 */
export class Rows implements Iterable<Row> {
  readonly length: number;

  constructor(
    readonly table: RowTable,
    private readonly positions: Int32Array | null = null,
    /** the kinds these rows have */
    readonly kinds: readonly RowKind[] = table.parts.kinds,
  ) {
    this.length = positions ? positions.length : table.length;
  }

  /** The trace's own index of the row at `position`. */
  index(position: number): number {
    return this.positions === null ? position : this.positions[position]!;
  }

  kind(position: number): RowKind {
    return this.table.kind(this.index(position));
  }

  ctx(position: number): number {
    return this.table.ctx(this.index(position));
  }

  sameValue(position: number, other: Rows, otherPosition: number): boolean {
    return this.table.sameValue(this.index(position), other.table, other.index(otherPosition));
  }

  /** The interned text of a row whose value is text (its Interner id), read from the columns. */
  internedId(position: number): number {
    return this.table.parts.columns.get(this.index(position), Word.lo);
  }

  /** The rows whose trace index is in [from, to): a span of the trace, as these rows have it. */
  within(from: number, to: number): Rows {
    return this.slice(this.firstAtLeast(from), this.firstAtLeast(to));
  }

  /** The first position whose trace index is at least `index` (rows keep trace order). */
  private firstAtLeast(index: number): number {
    let low = 0;
    let high = this.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.index(middle) < index) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The rows at positions [from, to). */
  slice(from: number, to: number): Rows {
    const positions = new Int32Array(Math.max(0, to - from));
    const kinds = new Set<RowKind>();
    for (let position = from; position < to; position++) {
      positions[position - from] = this.index(position);
      kinds.add(this.kind(position));
    }
    return new Rows(
      this.table,
      positions,
      this.kinds.filter((kind) => kinds.has(kind)),
    );
  }

  /** Outputs only: how many calls the trace made before the output at `position`. */
  callsBefore(position: number): number {
    return this.table.parts.columns.get(this.index(position), Word.callsBefore);
  }

  at(position: number): Row | undefined {
    return position >= 0 && position < this.length ? new TableRow(this.table, this.index(position)) : undefined;
  }

  *[Symbol.iterator](): Iterator<Row> {
    for (let position = 0; position < this.length; position++) yield new TableRow(this.table, this.index(position));
  }

  /** The rows whose kind passes `test`, asked once per kind. */
  filter(test: (kind: RowKind) => boolean): Rows {
    const kept = this.table.parts.kinds.map(test);
    let count = 0;
    for (let position = 0; position < this.length; position++) if (kept[this.kind(position).id]) count++;
    const positions = new Int32Array(count);
    count = 0;
    for (let position = 0; position < this.length; position++)
      if (kept[this.kind(position).id]) positions[count++] = this.index(position);
    return new Rows(
      this.table,
      positions,
      this.kinds.filter((kind) => kept[kind.id]),
    );
  }

  /** The rows for whose position `test` is true (each asked once). */
  where(test: (position: number) => boolean): Rows {
    const keep = new Uint8Array(this.length);
    let count = 0;
    for (let position = 0; position < this.length; position++) if ((keep[position] = test(position) ? 1 : 0)) count++;
    const positions = new Int32Array(count);
    const kinds = new Set<RowKind>();
    count = 0;
    for (let position = 0; position < this.length; position++) {
      if (keep[position] === 0) continue;
      positions[count++] = this.index(position);
      kinds.add(this.kind(position));
    }
    return new Rows(
      this.table,
      positions,
      this.kinds.filter((kind) => kinds.has(kind)),
    );
  }

  /** The calls replay feeds values to, in the order it ranks them (DETDRIFT_REPLAY_LIMIT pins the first k). */
  replayable(): Rows {
    return this.filter((kind) => REPLAYABLE_FAMILIES.has(kind.spec.family));
  }

  /** How many rows of each kind there are (kinds with none left out). */
  kindCounts(): Map<RowKind, number> {
    let counts: ArrayLike<number> = this.table.parts.counts;
    if (this.positions !== null) {
      const kept = new Float64Array(counts.length);
      for (let position = 0; position < this.length; position++) kept[this.kind(position).id]++;
      counts = kept;
    }
    const found = new Map<RowKind, number>();
    for (const kind of this.table.parts.kinds) if (counts[kind.id]! > 0) found.set(kind, counts[kind.id]!);
    return found;
  }
}

class TableRow implements Row {
  constructor(
    private readonly table: RowTable,
    readonly index: number,
  ) {}

  get event(): TraceEvent {
    return this.table.event(this.index);
  }

  get key(): number {
    return this.table.kind(this.index).key;
  }

  get api(): number {
    return this.table.kind(this.index).api;
  }

  get loose(): number {
    return this.table.kind(this.index).loose;
  }

  get ctx(): number {
    return this.table.ctx(this.index);
  }

  get value(): number | string | null {
    return this.table.parts.compared(this.event);
  }
}
