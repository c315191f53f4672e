import type { Platform } from './types.js';

/** What a path is normalized against: the platform that wrote it, its project root, and the pair's case rule. */
export interface PathContext {
  readonly platform: Platform;
  /** the project root in portable form (`c:/proj`), when known or inferred; paths below it become relative */
  readonly root: string | null;
  /** lowercase every path: one of the two platforms compared does not tell names apart by case */
  readonly foldCase: boolean;
}

/**
 * A path as it compares across platforms: portable separators and drive letter; below the project
 * root (known, inferred, or a CI checkout) relative to it; below the temporary or home directory
 * `<tmp>/...` or `<home>/...`; lowercased when the pair folds case. Relative paths, `node:` names
 * and `name@version/...` package paths only get their separators (and case) normalized.
 */
export function normalizePath(path: string, context: PathContext): string {
  const { platform } = context;
  let normal = platform.portable(path);
  if (platform.isAbsolute(normal)) normal = placed(normal, context);
  return context.foldCase ? normal.toLowerCase() : normal;
}

function placed(path: string, { platform, root }: PathContext): string {
  if (root !== null) {
    const rest = below(path, root, platform.caseSensitive);
    if (rest !== null) return rest;
  }
  for (const pattern of platform.workspaceRoots) {
    const match = pattern.exec(path);
    if (match) return path.slice(match[0].length + 1) || '.';
  }
  for (const [patterns, name] of [
    [platform.tempDirs, '<tmp>'],
    [platform.homeDirs, '<home>'],
  ] as const) {
    for (const pattern of patterns) {
      const match = pattern.exec(path);
      if (match) return name + path.slice(match[0].length);
    }
  }
  return path;
}

/** `path` relative to `dir` when it lies below it (or is it: `.`), else null. */
function below(path: string, dir: string, caseSensitive: boolean): string | null {
  const [p, d] = caseSensitive ? [path, dir] : [path.toLowerCase(), dir.toLowerCase()];
  if (p === d) return '.';
  return p.startsWith(d.endsWith('/') ? d : d + '/') ? path.slice(d.length + (d.endsWith('/') ? 0 : 1)) : null;
}

/**
 * The project root of a trace whose frames kept absolute paths (a root reached through a link,
 * like macOS `/var` → `/private/var`, or a writer that did not relativize): the directory prefix
 * that turns the most of them into a project file that the other trace names relative. Null when
 * no absolute path ends in such a file.
 */
export function inferRoot(absolute: Iterable<string>, relative: ReadonlySet<string>, foldCase: boolean): string | null {
  const votes = new Map<string, number>();
  for (const path of absolute) {
    const compared = foldCase ? path.toLowerCase() : path;
    // The longest project-relative suffix wins: `lib/app.js` over `app.js` for `/x/lib/app.js`.
    for (let slash = compared.indexOf('/', 1); slash > 0; slash = compared.indexOf('/', slash + 1)) {
      if (relative.has(compared.slice(slash + 1))) {
        const root = path.slice(0, slash);
        votes.set(root, (votes.get(root) ?? 0) + 1);
        break;
      }
    }
  }
  let best: string | null = null;
  for (const [root, count] of votes) {
    const bestCount = best === null ? 0 : votes.get(best)!;
    if (count > bestCount || (count === bestCount && best !== null && root.length < best.length)) best = root;
  }
  return best;
}
