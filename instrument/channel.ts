/**
 * How `detdrift.checkpoint()` (index.ts), and a second copy of the hook loaded into the same
 * thread, find the running hook: a diagnostics channel, asked by publishing a message that the
 * hook's subscriber answers. A channel is the thread's, in every realm (a test file that Jest runs
 * in a `vm` context reaches it too), and a program sees it only by asking for it by name, where a
 * property on the global would show in every reflection of it.
 */
export const RUNTIME_CHANNEL = 'detdrift.runtime';

/**
 * The message published on RUNTIME_CHANNEL: the hook fills in `runtime` (null while it starts, or when it
 * failed to).
 */
export interface RuntimeAsk<Runtime> {
  runtime?: Runtime | null;
}
