import { CHUNK_HEADER_BYTES, MAX_RUN, type TraceHeader } from './format.js';
import { IN_PLACE_RUN, Word, type ChunkMirror } from './mirror.js';
import { Float64Array, Int32Array, TypedArrayLength } from './primordials.js';
import { TraceWriter, type Sink } from './writer.js';

/**
 * A worker's trace writer: TraceWriter, building its chunk in the mirror's shared memory and
 * publishing, after each whole record, what a parent needs to write that chunk as it stands
 * (mirror.ts). A worker's events are recorded by this class alone, so the main thread's writer
 * keeps its code, and its speed, untouched.
 *
 * Termination can stop the worker at any call or loop, so the words only ever describe bytes that
 * no later store changes: a record is published once it is whole; a run of doubles grows in
 * `staged`, its length published after its value; a run whose count sits in front of its values
 * ends at IN_PLACE_RUN events, so its count never has to move them; a written chunk is unpublished
 * before the file's length grows by it (the parent then writes a chunk again at most at the place
 * where it already is, with the same bytes). A chunk that outgrows the shared memory (an event of
 * a megabyte) is built apart from it and written at its first event's end; meanwhile the parent
 * sees it as it was, and no run starts that would change the staged doubles it still counts on.
 */
export class MirroredWriter extends TraceWriter {
  private readonly words: Int32Array;
  /** the open run's length, alone: the fast path stores it with no index to check */
  private readonly runLengthWord: Int32Array;

  constructor(sink: Sink, header: TraceHeader, mirror: ChunkMirror, capacity?: number) {
    const words = new Int32Array(mirror.state);
    super(mirroredSink(sink, words, new Float64Array(mirror.state, 0, 1)), header, capacity);
    this.words = words;
    this.runLengthWord = new Int32Array(mirror.state, Word.runLength * 4, 1);
    this.out.moveHome(mirror.out);
    this.stageIn(new Float64Array(mirror.staged), MAX_RUN);
  }

  override number(api: number, tag: number, site: number, ctx: number, value: number): boolean {
    // TraceWriter.number's fast path, with the run's new length where the parent reads it
    const joins = tag === this.runDoubles && api === this.lastApi && ctx === this.lastCtx && site === 0;
    if (joins && this.runLength < this.stagedSize && this.eventAt < 0) {
      this.staged[this.runLength] = value;
      this.runLengthWord[0] = ++this.runLength;
      return ++this.count >= this.flushAt;
    }
    return this.numberEvent(api, tag, site, ctx, value);
  }

  protected override begin(api: number, tagByte: number, site: number, ctx: number): void {
    if (this.eventAt >= 0) this.cutPartial();
    if (this.runAt >= 0 && this.runDoubles < 0 && this.runLength >= IN_PLACE_RUN) this.closeRun();
    if (!this.out.atHome) this.lastApi = -1; // no run opens (nor stages a double) until the chunk is written
    super.begin(api, tagByte, site, ctx);
  }

  protected override done(): boolean {
    const due = super.done();
    if (!this.out.atHome) return true; // written now: the parent's copy ends before this record
    this.publish();
    return due;
  }

  protected override defined(): void {
    super.defined();
    if (this.out.atHome) this.publish();
  }

  protected override endChunk(): void {
    if (this.out.atHome) this.publish(); // the whole chunk, should its write be cut short
    super.endChunk();
  }

  private publish(): void {
    const words = this.words;
    words[Word.committed] = this.out.length;
    words[Word.runAt] = this.runAt;
    words[Word.runLength] = this.runLength;
    words[Word.runDoubles] = this.runDoubles;
  }
}

/**
 * `sink`, and after each write that went through, what the parent reads: nothing pending, then the
 * file that much longer (in that order, so no chunk ever counts both as written and as pending).
 */
function mirroredSink(sink: Sink, words: Int32Array, fileLength: Float64Array): Sink {
  return {
    write(bytes) {
      sink.write(bytes);
      words[Word.committed] = CHUNK_HEADER_BYTES;
      words[Word.runAt] = -1;
      fileLength[0] += TypedArrayLength(bytes);
    },
  };
}
