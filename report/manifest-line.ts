import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/**
 * Finds the line of a dependency in the project's package.json, where a bump's diff shows it:
 * `(name) => line` (1-based), null when the name is not a direct dependency or there is no
 * readable package.json. The file is read once, on the first lookup.
 */
export function manifestLines(root: string): (name: string) => number | null {
  let text: string | null | undefined;
  return (name) => {
    if (text === undefined) {
      try {
        text = readFileSync(join(root, 'package.json'), 'utf8');
      } catch {
        text = null; // no manifest: the annotation goes on the first project frame only
      }
    }
    return text === null ? null : dependencyLine(text, name);
  };
}

/** The line of `"name":` inside the first section that lists it; keys are unique per object, so the first match after the section's key is it. */
function dependencyLine(text: string, name: string): number | null {
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null; // an unparsable manifest has no line to point at
  }
  const section = SECTIONS.find((key) => {
    const deps = manifest[key];
    return typeof deps === 'object' && deps !== null && Object.hasOwn(deps, name);
  });
  if (!section) return null;
  const start = new RegExp(`"${section}"\\s*:\\s*\\{`, 'g').exec(text);
  if (!start) return null;
  const key = new RegExp(`"${escapeRegExp(JSON.stringify(name).slice(1, -1))}"\\s*:`, 'g');
  key.lastIndex = start.index + start[0].length;
  const found = key.exec(text);
  if (!found) return null;
  return text.slice(0, found.index).split('\n').length;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
