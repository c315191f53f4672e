import { posix } from 'node:path';
import {
  GREATEST_LOWER_BOUND,
  LEAST_UPPER_BOUND,
  originalPositionFor,
  sourceContentFor,
} from '@jridgewell/trace-mapping';
import type { Frame, SourceDef } from '../../tracer/format.js';
import { diskMap, heldMap, type GeneratedMap, type MapLookup } from './read.js';

/** A frame as a report shows it: at its original source position when a source map gives one. */
export interface ShownFrame extends Frame {
  /** where the code that ran had the frame, when a source map moved it to the position above */
  readonly generated?: { readonly file: string; readonly line: number; readonly column: number };
  /** why the source map the frame's file names could not be used: the position above is the generated one */
  readonly sourceMapError?: string;
}

/**
 * Frames at their original source positions: a generated file's map is the one the traced process
 * held (code a loader or runner transformed in memory, instrument/generated.ts), else the one its
 * file on this disk names (a dependency's bundle and its `.map`). Each map is read once. Traces
 * keep the generated positions, which is what runs compare by; this is for what a user reads.
 */
export class OriginalFrames {
  private readonly maps = new Map<string, MapLookup>();
  /** original frame → the map that gave it, for its source text */
  private readonly origins = new WeakMap<Frame, { map: GeneratedMap; source: string }>();

  constructor(
    /** the project root on this disk */
    private readonly root: string,
    /** the maps the traced process held, by generated file (a trace's `sources`) */
    private readonly held: ReadonlyMap<string, SourceDef> = new Map(),
  ) {}

  frames(frames: readonly Frame[]): ShownFrame[] {
    return frames.map((frame) => this.frame(frame));
  }

  frame(frame: Frame): ShownFrame {
    const lookup = this.mapOf(frame);
    if (lookup === null) return frame;
    if ('problem' in lookup) return { ...frame, sourceMapError: lookup.problem };
    const needle = { line: frame.line, column: Math.max(0, frame.column - 1) };
    let found = originalPositionFor(lookup.map, { ...needle, bias: GREATEST_LOWER_BOUND });
    if (found.source === null) found = originalPositionFor(lookup.map, { ...needle, bias: LEAST_UPPER_BOUND });
    // a position the map gives no source for: code the transform added (a wrapper), shown as it ran
    if (found.source === null || found.line === null) return frame;
    const shown: ShownFrame = {
      ...frame,
      file: originalName(frame, lookup.generated, found.source),
      line: found.line,
      column: found.column + 1,
      generated: { file: frame.file, line: frame.line, column: frame.column },
    };
    this.origins.set(shown, { map: lookup, source: found.source });
    return shown;
  }

  /**
   * The text of an original file as its map holds it (`sourcesContent`), for a code frame when the file is
   * not here.
   */
  sourceText(frame: Frame): string | null {
    const origin = this.origins.get(frame);
    return origin ? sourceContentFor(origin.map.map, origin.source) : null;
  }

  private mapOf(frame: Frame): MapLookup {
    let lookup = this.maps.get(frame.file);
    if (lookup === undefined) {
      const held = this.held.get(frame.file);
      lookup = held ? heldMap(held) : diskMap(frame, this.root);
      this.maps.set(frame.file, lookup);
    }
    return lookup;
  }
}

/**
 * The original file as frames name files: the way from the generated file to it, taken from the
 * generated frame's own name, so it needs neither machine's root (`dep@1.1.0/dist/index.js` and
 * `../src/rng.ts` make `dep@1.1.0/src/rng.ts`). A source that is no file (`webpack://...`) is
 * shown as the map names it.
 */
function originalName(frame: Frame, generated: string, source: string): string {
  if (!source.startsWith('file:')) return source;
  const from = posix.dirname(urlPath(generated));
  const way = posix.relative(from, urlPath(source));
  return posix.normalize(posix.join(posix.dirname(frame.file), way));
}

/** A `file:` URL's path with forward slashes, on any platform (`/C:/a/b.ts` for a Windows one). */
function urlPath(url: string): string {
  const { pathname } = new URL(url);
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}
