import type { Platform } from './types.js';

/**
 * Windows: `\` or `/` separators, drive letters in either case, `\\?\` long-path and UNC
 * prefixes, case-insensitive NTFS names, `\r\n` line endings. The temporary directory is
 * `%USERPROFILE%\AppData\Local\Temp`, which runners print in 8.3 form (`RUNNER~1`) as often as not.
 */
export const win32: Platform = Object.freeze({
  id: 'win32',
  eol: '\r\n',
  caseSensitive: false,
  portable,
  isAbsolute: (path: string) => /^[a-z]:\//.test(path) || path.startsWith('//'),
  tempDirs: [
    /^[a-z]:\/users\/[^/]+\/appdata\/local\/temp(?=\/|$)/i,
    /^[a-z]:\/windows\/temp(?=\/|$)/i,
    /^[a-z]:\/te?mp(?=\/|$)/i,
  ],
  homeDirs: [/^[a-z]:\/users\/[^/]+(?=\/|$)/i],
  workspaceRoots: [/^[a-z]:\/a\/[^/]+\/[^/]+(?=\/|$)/i],
});

function portable(path: string): string {
  // Only strings that look like Windows paths: a drive, a UNC or long-path prefix, or a backslash.
  if (!/^[a-z]:[\\/]|^\\\\|\\/i.test(path)) return path;
  let slashed = path.replaceAll('\\', '/');
  if (slashed.startsWith('//?/') || slashed.startsWith('//./')) {
    slashed = slashed.slice(4);
    if (/^unc\//i.test(slashed)) slashed = '//' + slashed.slice(4);
  }
  return /^[a-z]:/i.test(slashed) ? slashed[0]!.toLowerCase() + slashed.slice(1) : slashed;
}
