import { closestMatch } from 'leven';

/**
 * The candidate nearest a mistyped `word` (a command, an option, a config key), or null when none is within
 * two edits.
 */
export function nearest(word: string, candidates: readonly string[]): string | null {
  return closestMatch(word.toLowerCase(), candidates, { maxDistance: 2 }) ?? null;
}
