/** Every command's declaration (its `options.ts`: option specs, usage, example), by name, loaded at once for tests that go through them all. */
import { COMMANDS as TABLE } from '../cli/commands.js';
import type { Command } from '../cli/shared/options.js';

export const COMMANDS: Readonly<Record<string, Command>> = Object.fromEntries(
  await Promise.all(Object.entries(TABLE).map(async ([name, entry]) => [name, (await entry.load()).command] as const)),
);
