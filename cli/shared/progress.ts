import { inert } from '../../report/untrusted.js';

/**
 * Progress on stderr while detdrift records, replays and bisects. On a terminal a status line is
 * redrawn in place; in CI logs and under --json only one line per phase is written, so logs stay
 * short and stdout stays the report's. Its text can name packages and APIs from a trace: shown inert.
 */
export class Progress {
  private readonly live: boolean;
  private drawn = false;

  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {
    this.live = stream.isTTY === true && !process.env.CI;
  }

  /** A new phase: one line, always. */
  phase(text: string): void {
    this.clear();
    this.stream.write(`detdrift: ${inert(text)}\n`);
  }

  /** Where the phase is now: drawn on a terminal only. */
  update(text: string): void {
    if (!this.live) return;
    this.stream.write(`\r\u001b[K  ${inert(text)}`);
    this.drawn = true;
  }

  clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\u001b[K');
    this.drawn = false;
  }
}
