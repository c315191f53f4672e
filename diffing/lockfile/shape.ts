/**
 * Checks on the parsed tree that every reader shares: a field is what the format says, or the
 * lockfile is refused at the line of the field. Lookups go through own properties only, so keys
 * like `__proto__` or `constructor` in untrusted input stay data.
 */
import { excerpt, refuse, type Position } from './errors.js';

export type Fields = Readonly<Record<string, unknown>>;

/** Where a field is: the readers of YAML know exactly, the JSON reader searches the text. */
export interface Source {
  readonly file: string;
  where(container: object, key?: string): Position;
}

export function isFields(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function own(container: Fields, key: string): unknown {
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

/** A mapping field: absent (or an empty YAML value) is an empty mapping. */
export function fieldsAt(source: Source, container: Fields, key: string): Fields {
  const value = own(container, key);
  if (value === undefined || value === null) return {};
  if (!isFields(value)) refuse(source.file, source.where(container, key), `${excerpt(key)} must be a mapping`);
  return value;
}

/** A string field: absent is null. */
export function stringAt(source: Source, container: Fields, key: string): string | null {
  const value = own(container, key);
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') refuse(source.file, source.where(container, key), `${excerpt(key)} must be a string`);
  return value;
}

/** A mapping of names to strings (`dependencies: { mid: '^1.0.0' }`), as entries in key order. */
export function stringsAt(source: Source, container: Fields, key: string): [string, string][] {
  const map = fieldsAt(source, container, key);
  const entries: [string, string][] = [];
  for (const name of Object.keys(map)) {
    const value = map[name];
    if (typeof value !== 'string')
      refuse(source.file, source.where(map, name), `${excerpt(key)}.${excerpt(name)} must be a string`);
    entries.push([name, value]);
  }
  return entries;
}

/** `@scope/name@range` or `name@range` to its name; null when there is no name part. */
export function nameOf(descriptor: string): string | null {
  const at = descriptor.indexOf('@', descriptor.startsWith('@') ? 1 : 0);
  return at > 0 ? descriptor.slice(0, at) : null;
}
