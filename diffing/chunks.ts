import { statSync } from 'node:fs';
import { TraceError } from '../tracer/errors.js';
import { TraceReader, type ChunkStart, type TraceEvent } from '../tracer/reader.js';

/** How many decoded chunks a table keeps for the rows a report shows (a window of edits, the cause, nearby calls). */
const CACHED_CHUNKS = 4;

/** Where each chunk of a trace starts, to decode again the few chunks whose rows a report shows. */
export class TraceChunks {
  readonly starts: ChunkStart[] = [];
  private readonly cache = new Map<number, TraceEvent[]>();

  /** `file` as it was read: its size and modification time, to tell when it has changed since */
  constructor(
    readonly file: string,
    private readonly stamp: string,
  ) {}

  events(chunk: number): TraceEvent[] {
    let events = this.cache.get(chunk);
    if (events) {
      this.cache.delete(chunk);
    } else {
      if (fileStamp(this.file) !== this.stamp) throw this.changed(chunk);
      const reader = TraceReader.open(this.file);
      try {
        events = reader.eventsAt(this.starts[chunk]!);
      } finally {
        reader.close();
      }
      if (this.cache.size >= CACHED_CHUNKS) this.cache.delete(this.cache.keys().next().value!);
    }
    this.cache.set(chunk, events);
    return events;
  }

  changed(chunk: number): TraceError {
    return new TraceError(
      'ERR_TRACE_CHANGED',
      this.file,
      this.starts[chunk]?.offset ?? 0,
      'the trace as it was when compared: the file changed since',
    );
  }
}

/** What tells a file changed: its size and modification time. */
export function fileStamp(file: string): string {
  const { size, mtimeMs } = statSync(file);
  return `${size}:${mtimeMs}`;
}
