import { constants } from 'node:os';
import { CliError } from './errors.js';

/**
 * Ctrl-C or a SIGTERM (to detdrift or its process group) while a command runs its children: the
 * children are stopped (execa's `cancelSignal`), the command ends at the next run it would have
 * started, its temporary traces are deleted on the way out (the `finally` of each command), and
 * detdrift exits 128+N as the signal would have. A second signal kills it at once.
 */
const controller = new AbortController();

/** Aborted once a signal interrupted the command: passed to every child detdrift starts. */
export const interruption: AbortSignal = controller.signal;

export class Interrupted extends CliError {
  override readonly status: number;

  constructor(readonly signal: NodeJS.Signals) {
    super('ERR_INTERRUPTED', `interrupted by ${signal}: the runs were stopped and their temporary traces deleted`);
    this.status = 128 + (constants.signals[signal] ?? 0);
  }
}

let listening = false;

/** From here on, SIGINT, SIGTERM and SIGHUP interrupt the command instead of killing detdrift. */
export function stopOnInterrupt(): void {
  if (listening) return;
  listening = true;
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const interrupt = (signal: NodeJS.Signals) => {
    if (!interruption.aborted) return controller.abort(new Interrupted(signal));
    // The second: raised again without ours, it kills as it would have. Ours stay until then, as
    // execa's signal-exit raises a signal again itself when its listeners are the only ones left.
    for (const each of signals) process.off(each, interrupt);
    process.kill(process.pid, signal);
  };
  for (const signal of signals) process.on(signal, interrupt);
}

/** Ends the command if a signal interrupted it: called after each child it waited for. */
export function throwIfInterrupted(): void {
  if (interruption.aborted) throw interruption.reason as Interrupted;
}
