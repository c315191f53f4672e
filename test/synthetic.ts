/**
 * Builds trace files event by event with the real writer, for comparison scenarios that a real
 * program cannot produce on demand (an exact interleaving, a run cut short).
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { align, type Alignment } from '../diffing/align.js';
import { Interner, loadTrace } from '../diffing/load.js';
import { API_TABLE, Api, type ApiKey } from '../tracer/apis.js';
import { FORMAT_NAME, FORMAT_VERSION, Tag, type Frame, type TraceHeader } from '../tracer/format.js';
import { TraceWriter } from '../tracer/writer.js';

export interface SyntheticEvent {
  readonly api: ApiKey;
  /** `file:line` of the call site; a node_modules frame as `name@version/file:line` */
  readonly at?: string;
  /** the whole stack, innermost first, in the form of `at`; `[]`: a stack of Node's internals alone */
  readonly stack?: readonly string[];
  /** the async context: a path of ordinals below the root, e.g. [1] or [1, 2] */
  readonly ctx?: readonly number[];
  readonly value?: number | string;
  readonly control?: number;
}

export function header(overrides: Partial<TraceHeader> = {}): TraceHeader {
  return {
    format: FORMAT_NAME,
    version: FORMAT_VERSION,
    tool: { name: 'detdrift', version: '0.0.0-test' },
    node: 'v20.0.0',
    platform: 'linux',
    arch: 'x64',
    mode: 'observe',
    seed: '1',
    command: ['node', 'app.js'],
    lineage: '0',
    root: { name: 'fixture', version: '1.0.0' },
    lockfile: null,
    apis: API_TABLE.map(({ api, form, family }) => ({ api, form, family })),
    sites: { first: 64, every: 256 },
    holds: [],
    ...overrides,
  };
}

/** Writes a trace file; `complete: false` leaves out the end record, as a killed run does. */
export function writeTrace(
  dir: string,
  name: string,
  events: readonly SyntheticEvent[],
  options: { complete?: boolean; header?: Partial<TraceHeader> } = {},
): string {
  const file = join(dir, `${name}.ddtrace`);
  const fd = openSync(file, 'w');
  const writer = new TraceWriter({ write: (bytes) => void writeSync(fd, bytes) }, header(options.header));
  const sites = new Map<string, number>();
  const contexts = new Map<string, number>([['root', 0]]);
  const contextId = (path: readonly number[]): number => {
    const key = ['root', ...path].join('.');
    let id = contexts.get(key);
    if (id === undefined) {
      id = contexts.size;
      contexts.set(key, id);
      writer.defineContext(id, { key, type: 'Timeout' });
    }
    return id;
  };
  for (const event of events) {
    let site = 0;
    const stack = event.stack ?? (event.at ? [event.at] : null);
    if (stack) {
      const key = JSON.stringify(stack);
      site = sites.get(key) ?? 0;
      if (site === 0) {
        site = sites.size + 1;
        sites.set(key, site);
        writer.defineSite(site, { frames: stack.map(frameOf), skipped: stack.length === 0 ? 3 : 0 });
      }
    }
    const ctx = contextId(event.ctx ?? []);
    const control = (event.control ?? 0) << 4;
    const api = Api[event.api];
    const full =
      typeof event.value === 'string'
        ? writer.object(api, Tag.string | control, site, ctx, event.value)
        : writer.number(api, (event.value === undefined ? Tag.none : Tag.f64) | control, site, ctx, event.value ?? 0);
    // The writer never flushes by itself: past its buffer, events would be lost.
    if (full) writer.flush();
  }
  if (options.complete === false) writer.flush();
  else writer.end(0);
  closeSync(fd);
  return file;
}

/** Two traces, `a.ddtrace` and `b.ddtrace`, written into `dir`. */
export function writePair(dir: string, a: readonly SyntheticEvent[], b: readonly SyntheticEvent[]): [string, string] {
  return [writeTrace(dir, 'a', a), writeTrace(dir, 'b', b)];
}

/** The alignment of two traces written into `dir` and read back. */
export function alignPair(dir: string, a: readonly SyntheticEvent[], b: readonly SyntheticEvent[]): Alignment {
  const interner = new Interner();
  const [traceA, traceB] = writePair(dir, a, b).map((file) => loadTrace(file, interner));
  return align(traceA!.calls, traceB!.calls);
}

function frameOf(at: string): Frame {
  const [file, line] = at.split(':');
  const pkg = /^((?:@[^/]+\/)?[^/@]+@[^/]+)\//.exec(file!)?.[1] ?? null;
  return { file: file!, line: Number(line), column: 1, fn: null, package: pkg };
}
