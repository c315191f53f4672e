/**
 * Lines for stdout, written in batches and with back-pressure: a trace of millions of events must
 * not pile up in memory when stdout is a slow pipe. A reader that goes away (`detdrift show t |
 * head`) ends the output quietly instead of crashing on EPIPE.
 */
export class LineOutput {
  /** true once the reader closed the pipe: stop producing lines */
  closed = false;
  private buffer = '';
  private failure: Error | null = null;
  private readonly stream: NodeJS.WritableStream;

  constructor(stream: NodeJS.WritableStream) {
    this.stream = stream;
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') this.closed = true;
      else this.failure = error;
    });
  }

  /** Queues one line; true when the batch is due for `flush()`. */
  line(text: string): boolean {
    this.buffer += text + '\n';
    return this.buffer.length >= BATCH;
  }

  async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.closed || this.buffer === '') return;
    const text = this.buffer;
    this.buffer = '';
    if (this.stream.write(text)) return;
    await new Promise<void>((resolve) => {
      // An error or close instead of drain also ends the wait; the listener above records why.
      const done = () => {
        this.stream.off('drain', done).off('error', done).off('close', done);
        resolve();
      };
      this.stream.once('drain', done).once('error', done).once('close', done);
    });
    if (this.failure) throw this.failure;
  }
}

const BATCH = 1 << 16;
