/**
 * The program-facing API of detdrift. Without the hook every function here does nothing, so a
 * program can keep its checkpoints in production.
 */

import { channel } from 'node:diagnostics_channel';
import { RUNTIME_CHANNEL, type RuntimeAsk } from './instrument/channel.js';

interface RuntimeLike {
  checkpoint(label: string, value: unknown): void;
}

const running = channel(RUNTIME_CHANNEL);

/**
 * Marks a point the program reached and a value it holds there (JSON-serialized, then digested),
 * so two runs can be compared on what the program computed, not only on what it printed.
 */
export function checkpoint(label: string, value?: unknown): void {
  if (!running.hasSubscribers) return;
  const ask: RuntimeAsk<RuntimeLike> = {};
  running.publish(ask);
  ask.runtime?.checkpoint(label, value);
}
