import type { Platform } from './types.js';

/**
 * macOS: `/` paths on a case-insensitive (but case-keeping) APFS volume, `\n` line endings.
 * `/tmp` and `/var` are links into `/private`, so a path can name the same place either way; the
 * per-user temporary directory is `/var/folders/XX/RANDOM/T`.
 */
export const darwin: Platform = Object.freeze({
  id: 'darwin',
  eol: '\n',
  caseSensitive: false,
  portable: (path: string) => path,
  isAbsolute: (path: string) => path.startsWith('/'),
  tempDirs: [/^(?:\/private)?\/var\/folders\/[^/]+\/[^/]+\/T(?=\/|$)/, /^(?:\/private)?\/(?:var\/)?tmp(?=\/|$)/],
  homeDirs: [/^\/Users\/[^/]+(?=\/|$)/, /^\/var\/root(?=\/|$)/],
  workspaceRoots: [/^\/Users\/runner\/work\/[^/]+\/[^/]+(?=\/|$)/],
});
