/**
 * The program-facing API of detdrift. Without the hook every function here does nothing, so a
 * program can keep its checkpoints in production.
 */

interface RuntimeLike {
  checkpoint(label: string, value: unknown): void;
}

const RUNTIME_KEY = Symbol.for('detdrift.runtime');

/**
 * Marks a point the program reached and a value it holds there (JSON-serialized, then digested),
 * so two runs can be compared on what the program computed, not only on what it printed.
 */
export function checkpoint(label: string, value?: unknown): void {
  const runtime = (globalThis as { [RUNTIME_KEY]?: RuntimeLike | null })[RUNTIME_KEY];
  runtime?.checkpoint(label, value);
}
