/**
 * The file the CLI adds to Mocha's command (`--require`; add it by hand the same way, or to
 * `.mocharc`'s `require`): Mocha calls `mochaGlobalSetup` with its Runner as `this`, and this hands
 * the Runner to the running hook (runners/mocha.ts), found on the hook's diagnostics channel. It
 * is loaded by Mocha, after the hook patched the built-ins, and so does nothing but that.
 */
import { channel } from 'node:diagnostics_channel';
import { RUNTIME_CHANNEL, type RuntimeAsk } from '../channel.js';

interface RuntimeLike {
  attachRunner(name: 'mocha', runner: unknown): void;
}

export function mochaGlobalSetup(this: unknown): void {
  const running = channel(RUNTIME_CHANNEL);
  if (!running.hasSubscribers) return;
  const ask: RuntimeAsk<RuntimeLike> = {};
  running.publish(ask);
  ask.runtime?.attachRunner('mocha', this);
}
