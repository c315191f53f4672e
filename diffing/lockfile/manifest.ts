/**
 * The root package.json, for what a yarn lockfile does not record: yarn classic has no entry for
 * the root project at all, and yarn berry merges devDependencies into its workspace's dependencies.
 */
import { isFields, own } from './shape.js';

export interface ManifestDependency {
  readonly name: string;
  readonly range: string;
  readonly dev: boolean;
  readonly optional: boolean;
}

/**
 * The root's dependencies with what kind they are (a name in dependencies and devDependencies
 * is a production one). Anything that is not a mapping of strings is ignored: the lockfile,
 * not the manifest, is what this module validates.
 */
export function manifestDependencies(manifest: unknown): ManifestDependency[] {
  if (!isFields(manifest)) return [];
  const section = (key: string): [string, string][] => {
    const value = own(manifest, key);
    return isFields(value)
      ? Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      : [];
  };
  const found = new Map<string, ManifestDependency>();
  for (const [name, range] of section('devDependencies')) found.set(name, { name, range, dev: true, optional: false });
  for (const [name, range] of section('dependencies')) found.set(name, { name, range, dev: false, optional: false });
  for (const [name, range] of section('optionalDependencies'))
    found.set(name, { name, range, dev: false, optional: true });
  return [...found.values()];
}
