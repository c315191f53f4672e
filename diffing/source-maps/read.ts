import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TraceMap } from '@jridgewell/trace-mapping';
import type { Frame, SourceDef } from '../../tracer/format.js';
import { inside, locate } from '../locate.js';

/** A generated file's source map, ready to look positions up in. */
export interface GeneratedMap {
  readonly map: TraceMap;
  /**
   * the generated file, as a `file:` URL on the machine the sources resolve on (the traced one for
   * a map held in the trace, this one for a file on disk): original files are named relative to it
   */
  readonly generated: string;
}

/** A map the generated file names but that cannot be used, and why (no content of it: it may be anything). */
export interface MapProblem {
  readonly problem: string;
}

export type MapLookup = GeneratedMap | MapProblem | null;

const COMMENT = /^[ \t]*\/\/[#@][ \t]*sourceMappingURL=([^\s'"`]+)[ \t]*$/;
/** How far from its end a file's `sourceMappingURL` comment is looked for, past an inline map's length. */
const TAIL_LINES = 4;

/** The map the traced process held for a generated file (instrument/generated.ts). */
export function heldMap(def: SourceDef): MapLookup {
  const generated = def.path.startsWith('file:') ? def.path : fileUrl(def.path);
  const json = def.map.startsWith('data:') ? dataUrlText(def.map) : def.map;
  if (json === null) return { problem: 'the inline map is not a base64 data: URL' };
  return parsed(json, generated, generated);
}

/**
 * The map a generated file on this disk names in its last `sourceMappingURL` comment: inline, or
 * a file beside it. A map file is read only below the project or the file's package, as code
 * frames are (a dependency is untrusted input). Null when the file is not here or names no map.
 */
export function diskMap(frame: Pick<Frame, 'file' | 'package'>, root: string): MapLookup {
  const located = locate(frame, root);
  if (located === null) return null;
  let text: string;
  try {
    text = readFileSync(located.file, 'utf8');
  } catch {
    return null; // no code frame either: nothing to say about a map
  }
  const url = mapComment(text);
  if (url === null) return null;
  const generated = pathToFileURL(located.file).href;
  if (url.startsWith('data:')) {
    const json = dataUrlText(url);
    return json === null
      ? { problem: 'the inline map is not a data: URL of JSON' }
      : parsed(json, generated, generated);
  }
  let name: string;
  try {
    name = url.startsWith('file:')
      ? relative(dirname(located.file), fileURLToPath(url))
      : decodeURIComponent(url.replace(/[?#].*$/, ''));
  } catch {
    return { problem: `${url} is not a file name` };
  }
  const file = inside(located.root, join(relative(located.root, dirname(located.file)), name));
  if (file === null) return { problem: `${name} is outside ${frame.package ?? 'the project'}` };
  let json: string;
  try {
    json = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { problem: `${name} ${code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? 'unreadable'})`}` };
  }
  return parsed(json, pathToFileURL(file).href, generated, name);
}

/** The URL in the last `sourceMappingURL` comment of a file's last lines, or null. */
function mapComment(text: string): string | null {
  const lines = text.trimEnd().split(/\r?\n/).slice(-TAIL_LINES).reverse();
  for (const line of lines) {
    const found = COMMENT.exec(line);
    if (found) return found[1]!;
  }
  return null;
}

function parsed(json: string, mapUrl: string, generated: string, name = 'the inline map'): MapLookup {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    return { problem: `${name} is not valid JSON` };
  }
  try {
    return { map: new TraceMap(raw as ConstructorParameters<typeof TraceMap>[0], mapUrl), generated };
  } catch {
    return { problem: `${name} is not a source map` };
  }
}

/** The text a `data:` URL holds, base64 or percent-encoded; null for anything else. */
function dataUrlText(url: string): string | null {
  const comma = url.indexOf(',');
  if (comma < 0) return null;
  const meta = url.slice('data:'.length, comma);
  const body = url.slice(comma + 1);
  if (meta.split(';').includes('base64')) return Buffer.from(body, 'base64').toString('utf8');
  try {
    return decodeURIComponent(body);
  } catch {
    return null;
  }
}

/** A traced process's path as a `file:` URL, on any platform: `C:\a\b.ts` is `file:///C:/a/b.ts`. */
function fileUrl(path: string): string {
  const slashed = path.replace(/\\/g, '/');
  const absolute = /^[A-Za-z]:\//.test(slashed) ? `/${slashed}` : slashed;
  return `file://${encodeURI(absolute).replace(/[?#]/g, encodeURIComponent)}`;
}
