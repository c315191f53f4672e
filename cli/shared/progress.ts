import { inert } from '../../report/untrusted.js';

/**
 * Progress on stderr while detdrift installs, records, replays and bisects. On a terminal a status
 * line is redrawn in place; in CI logs and pipes a phase is one line and its progress a line every
 * few seconds (`DETDRIFT_PROGRESS_EVERY`, in seconds), so a long bisection is never silent and
 * logs stay short. stdout stays the report's. Its text can name packages and APIs from a trace:
 * shown inert.
 */
export class Progress {
  private readonly live: boolean;
  private readonly every: number;
  private drawn = false;
  /** when the current phase began, and when a line was last written in it (ms) */
  private began = Date.now();
  private written = Date.now();

  constructor(
    private readonly stream: NodeJS.WriteStream = process.stderr,
    env: NodeJS.ProcessEnv = process.env,
  ) {
    this.live = stream.isTTY === true && !env.CI;
    const every = Number(env.DETDRIFT_PROGRESS_EVERY);
    this.every = env.DETDRIFT_PROGRESS_EVERY !== undefined && every >= 0 ? every * 1000 : DEFAULT_EVERY;
  }

  /** A new phase: one line, always. */
  phase(text: string): void {
    this.clear();
    this.stream.write(`detdrift: ${inert(text)}\n`);
    this.began = this.written = Date.now();
  }

  /** Where the phase is now: drawn on a terminal, written every few seconds elsewhere. */
  update(text: string): void {
    if (this.live) {
      this.stream.write(`\r\u001b[K  ${inert(text)}`);
      this.drawn = true;
      return;
    }
    const now = Date.now();
    if (now - this.written < this.every) return;
    this.stream.write(`  ${inert(text)}\n`);
    this.written = now;
  }

  /** `done` steps of about `about` in the phase, with the time left at the pace so far. */
  step(text: string, done: number, about: number): void {
    const elapsed = Date.now() - this.began;
    const left = done > 0 && about > done ? Math.round(((about - done) * elapsed) / done / 1000) : null;
    const remaining = left === null ? '' : `, about ${duration(left)} left`;
    this.update(`${text} (${done} of about ${Math.max(done, about)} done${remaining})`);
  }

  clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\u001b[K');
    this.drawn = false;
  }
}

const DEFAULT_EVERY = 5000;

function duration(seconds: number): string {
  return seconds < 90 ? `${seconds} s` : `${Math.round(seconds / 60)} min`;
}
