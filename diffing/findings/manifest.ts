import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const SECTIONS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/**
 * The line of each direct dependency in the project's package.json, where a bump's diff shows it
 * (1-based; a name listed in two sections at the first that lists it). Empty when there is no
 * readable, parsable package.json: annotations then go on the first project frame only.
 */
export function manifestLines(root: string): ReadonlyMap<string, number> {
  let text: string;
  try {
    text = readFileSync(join(root, 'package.json'), 'utf8');
  } catch {
    return new Map(); // no manifest: no line to point at
  }
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return new Map(); // an unparsable manifest has no line to point at
  }
  const lines = new Map<string, number>();
  const listed = new Set<string>();
  for (const section of SECTIONS) {
    const deps = manifest[section];
    if (typeof deps !== 'object' || deps === null) continue;
    for (const name of Object.keys(deps).filter((name) => !listed.has(name))) {
      listed.add(name);
      const line = dependencyLine(text, section, name);
      if (line !== null) lines.set(name, line);
    }
  }
  return lines;
}

/**
 * The line of `"name":` inside `section`; keys are unique per object, so the first match after the section's
 * key is it.
 */
function dependencyLine(text: string, section: string, name: string): number | null {
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
