import { bytesToHex } from '../tracer/digest.js';
import type { ContextDef, Frame, SiteDef, TraceHeader } from '../tracer/format.js';
import { TraceReader, type TraceEnding, type TraceEvent, type TraceValue } from '../tracer/reader.js';
import type { TraceView } from '../platforms/types.js';

/** Gives equal strings equal small numbers, shared by the two traces under comparison. */
export class Interner {
  private readonly ids = new Map<string, number>();
  readonly names: string[] = [''];

  id(name: string): number {
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(name, id);
      this.names.push(name);
    }
    return id;
  }
}

/** One event, reduced to what comparison needs; the full event stays in `source`. */
export interface Row {
  readonly index: number;
  readonly event: TraceEvent;
  /** interned `api form @ site` (0 when no stack was taken): equal keys are the same call */
  readonly key: number;
  /** interned `api` alone, for events whose stack was not taken */
  readonly api: number;
  /** interned site key that survives a version bump: package name without version, function, first project frame */
  readonly loose: number;
  /** interned async context key: the same context has the same key in every run */
  readonly ctx: number;
  /** a value that compares with === */
  readonly value: number | string | null;
}

export interface LoadedTrace {
  readonly file: string;
  readonly header: TraceHeader;
  readonly ending: TraceEnding;
  readonly sites: ReadonlyMap<number, SiteDef>;
  readonly contexts: ReadonlyMap<number, ContextDef>;
  /** calls to intercepted sources, in call order */
  readonly calls: readonly Row[];
  /** what the program showed the world: writes, files, checkpoints, exit */
  readonly outputs: readonly Row[];
}

/** Reads a trace whole into rows keyed through `interner`, so two traces' keys compare by number. */
export function loadTrace(file: string, interner: Interner): LoadedTrace {
  const reader = TraceReader.open(file);
  const calls: Row[] = [];
  const outputs: Row[] = [];
  try {
    for (const event of reader.events()) {
      // stderr lines are the program's log (timestamps, progress), and replay notes are detdrift's.
      if (event.family === 'log' || event.family === 'meta') continue;
      const site = event.site ? reader.sites.get(event.site) : undefined;
      const ctx = interner.id(reader.contexts.get(event.ctx)?.key ?? 'root');
      const index = event.family === 'output' ? outputs.length : calls.length;
      (event.family === 'output' ? outputs : calls).push(toRow(event, index, site, ctx, event.value, interner));
    }
  } finally {
    reader.close();
  }
  return { file, header: reader.header, ending: reader.ending, sites: reader.sites, contexts: reader.contexts, calls, outputs };
}

function toRow(event: TraceEvent, index: number, site: SiteDef | undefined, ctx: number, value: TraceValue, interner: Interner): Row {
  const name = event.family === 'output' ? `${event.api} ${event.form}` : event.api;
  return {
    index,
    event,
    key: interner.id(site ? `${name} @ ${strictSite(site)}` : name),
    api: interner.id(name),
    loose: interner.id(site ? `${name} @ ${looseSite(site)}` : name),
    ctx,
    value: comparable(value),
  };
}

/**
 * The trace as `view` sees it (platforms/: traces from two platforms or machines): rows keyed again
 * through `interner` from call sites with portable, project-relative paths and from values with
 * what differs between machines replaced. Each row keeps its event as recorded, and `sites` the
 * paths in their own case, which reports show (a code frame reads the file).
 */
export function viewTrace(trace: LoadedTrace, view: TraceView, interner: Interner): LoadedTrace {
  const compared = new Map<number, SiteDef>();
  const shown = new Map<number, SiteDef>();
  for (const [id, site] of trace.sites) {
    compared.set(id, view.site(site));
    shown.set(id, view.shown(site));
  }
  const again = (row: Row) => toRow(row.event, row.index, row.event.site ? compared.get(row.event.site) : undefined, row.ctx, view.value(row.event), interner);
  return { ...trace, sites: shown, calls: trace.calls.map(again), outputs: trace.outputs.map(again) };
}

/** The call site's own location, with the package version left out so a bump keeps unchanged lines equal. */
function strictSite(site: SiteDef): string {
  const frame = site.frames[0];
  return frame ? `${unversioned(frame)}:${frame.line}:${frame.column}` : '?';
}

function looseSite(site: SiteDef): string {
  const frame = site.frames[0];
  const firstParty = site.frames.find((candidate) => candidate.package === null);
  const where = firstParty ? `${firstParty.file}:${firstParty.line}` : '?';
  return frame ? `${packageName(frame) ?? '.'}#${frame.fn ?? ''}<${where}` : '?';
}

export function packageName(frame: Frame): string | null {
  if (frame.package === null) return null;
  const at = frame.package.lastIndexOf('@');
  return at > 0 ? frame.package.slice(0, at) : frame.package;
}

function unversioned(frame: Frame): string {
  const name = packageName(frame);
  return name === null ? frame.file : name + frame.file.slice(frame.package!.length);
}

function comparable(value: TraceValue): number | string | null {
  if (value === null || typeof value === 'number' || typeof value === 'string') return value;
  if (typeof value === 'bigint') return `${value}n`;
  if (value instanceof Uint8Array) return bytesToHex(value);
  return JSON.stringify(value);
}
