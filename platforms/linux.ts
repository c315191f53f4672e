import type { Platform } from './types.js';

/**
 * Linux: `/` paths, where a backslash is an ordinary character of a name (so it is never turned
 * into a separator), case-sensitive names, `\n` line endings.
 */
export const linux: Platform = Object.freeze({
  id: 'linux',
  eol: '\n',
  caseSensitive: true,
  portable: (path: string) => path,
  isAbsolute: (path: string) => path.startsWith('/'),
  tempDirs: [/^\/(?:var\/)?tmp(?=\/|$)/, /^\/dev\/shm(?=\/|$)/],
  homeDirs: [/^\/home\/[^/]+(?=\/|$)/, /^\/root(?=\/|$)/],
  workspaceRoots: [/^\/home\/runner\/work\/[^/]+\/[^/]+(?=\/|$)/],
});
