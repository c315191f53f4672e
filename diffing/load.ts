import { bytesToHex } from '../tracer/digest.js';
import type { ContextDef, Frame, SiteDef, TraceHeader } from '../tracer/format.js';
import { TraceReader, type TraceEnding, type TraceEvent, type TraceValue } from '../tracer/reader.js';

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
      const site = event.site ? reader.sites.get(event.site) : undefined;
      const name = event.family === 'output' ? `${event.api} ${event.form}` : event.api;
      const row: Row = {
        index: event.family === 'output' ? outputs.length : calls.length,
        event,
        key: interner.id(site ? `${name} @ ${strictSite(site)}` : name),
        api: interner.id(name),
        loose: interner.id(site ? `${name} @ ${looseSite(site)}` : name),
        ctx: interner.id(reader.contexts.get(event.ctx)?.key ?? 'root'),
        value: comparable(event.value),
      };
      (event.family === 'output' ? outputs : calls).push(row);
    }
  } finally {
    reader.close();
  }
  return { file, header: reader.header, ending: reader.ending, sites: reader.sites, contexts: reader.contexts, calls, outputs };
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
