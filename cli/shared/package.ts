import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * detdrift's own manifest, read from the install (dist/cli/shared/ → the package root). The CLI's
 * bundle keeps its chunks at the same depth (dist/cli/bundle/), so these relative paths hold there too.
 */
interface Manifest {
  readonly version: string;
  readonly engines: { readonly node: string };
}

export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const MANIFEST: Manifest = JSON.parse(
  readFileSync(new URL('../../../package.json', import.meta.url), 'utf8'),
) as Manifest;

/** The hook that `record` puts into NODE_OPTIONS (a CommonJS preload), from the same install as this CLI. */
export const REGISTER = fileURLToPath(new URL('../../instrument/register.cjs', import.meta.url));
