import type { ApiRow, Frame, SiteDef } from '../tracer/format.js';
import type { Interner } from './load.js';
import type { RowKind } from './rows.js';

/** A row's keys: the exact call site, the API alone, and the site as a bump leaves it recognizable. */
export function keysOf(
  spec: ApiRow,
  site: SiteDef | undefined,
  interner: Interner,
): Pick<RowKind, 'key' | 'api' | 'loose'> {
  const name = spec.family === 'output' ? `${spec.api} ${spec.form}` : spec.api;
  return {
    key: interner.id(site ? `${name} @ ${strictSite(site)}` : name),
    api: interner.id(name),
    loose: interner.id(site ? `${name} @ ${looseSite(site)}` : name),
  };
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
