import type { SiteDef, TraceHeader } from '../tracer/format.js';
import { inferRoot, normalizePath, type PathContext } from './paths.js';
import { platformOf } from './platform.js';
import type { Platform, TraceView } from './types.js';
import { comparableValue } from './values.js';

/** What the views need of a trace: its header, and its call sites (to infer a project root). */
export interface TraceShape {
  readonly header: TraceHeader;
  readonly sites: ReadonlyMap<number, SiteDef>;
}

/**
 * The views of two traces compared across platforms or machines (DESIGN.md, Localizing, step 1).
 * Each trace's paths are read by its own platform's rules; the pair folds case when either
 * platform ignores it, and a trace whose frames kept absolute paths gets the project root that
 * makes them match the other trace's project-relative files.
 */
export function pairView(a: TraceShape, b: TraceShape): { readonly a: TraceView; readonly b: TraceView } {
  const platformA = platformOf(a.header.platform);
  const platformB = platformOf(b.header.platform);
  const foldCase = !platformA.caseSensitive || !platformB.caseSensitive;
  const contextA = { platform: platformA, root: null, foldCase };
  const contextB = { platform: platformB, root: null, foldCase };
  const rootA = inferRoot(absoluteFiles(a, platformA), relativeFiles(b, contextB), foldCase);
  const rootB = inferRoot(absoluteFiles(b, platformB), relativeFiles(a, contextA), foldCase);
  return { a: viewOf({ ...contextA, root: rootA }), b: viewOf({ ...contextB, root: rootB }) };
}

function viewOf(context: PathContext): TraceView {
  const shown = { ...context, foldCase: false };
  return {
    site: (def) => withFiles(def, context),
    shown: (def) => withFiles(def, shown),
    value: (event) => comparableValue(event, context),
  };
}

function withFiles(def: SiteDef, context: PathContext): SiteDef {
  return { ...def, frames: def.frames.map((frame) => ({ ...frame, file: normalizePath(frame.file, context) })) };
}

function absoluteFiles(trace: TraceShape, platform: Platform): Set<string> {
  const files = new Set<string>();
  for (const site of trace.sites.values()) {
    for (const frame of site.frames) {
      const file = platform.portable(frame.file);
      if (platform.isAbsolute(file)) files.add(file);
    }
  }
  return files;
}

/** The project's own files a trace names relative (no package, not absolute), normalized as they compare. */
function relativeFiles(trace: TraceShape, context: PathContext): Set<string> {
  const files = new Set<string>();
  for (const site of trace.sites.values()) {
    for (const frame of site.frames) {
      const file = normalizePath(frame.file, context);
      if (
        frame.package === null &&
        !context.platform.isAbsolute(file) &&
        !file.startsWith('<') &&
        !file.startsWith('node:')
      )
        files.add(file);
    }
  }
  return files;
}
