import { readFileSync, statSync } from 'node:fs';
import type { SiteDef } from '../tracer/format.js';
import { packageName } from './keys.js';
import { DEFAULT_MAX_BYTES, mask, positionKey, scanSource, type ScanSite } from './scan/index.js';
import { locate } from './locate.js';

/**
 * A call's identity across versions of its package: the package by name (not version), and the
 * code around the call once local names are masked (diffing/scan: what a minifier renames is gone,
 * property names and globals stay). A rebuild that renames its chunks (`dist/chunk-3FQK2W.js` →
 * `dist/chunk-J7XP4M.js`), moves its files or renames its minified functions keeps this identity;
 * file, line and column do not survive it, and stay the identity where the source is not here.
 *
 * Sources are read from the project a trace was recorded in (`root`), at the version the frame
 * names, and parsed once each, only for the few sites a comparison cannot pair by location.
 */
export class CallIdentities {
  private readonly files = new Map<string, ReadonlyMap<string, ScanSite> | null>();

  /** The identity of the call a site's first frame makes, or null when it cannot be told here. */
  of(site: SiteDef | undefined, root: string | null): string | null {
    const frame = site?.frames[0];
    const name = frame && packageName(frame);
    if (!frame || !name || root === null) return null;
    const file = locate(frame, root)?.file ?? null;
    const scanned = file === null ? null : this.sitesIn(file, frame.file);
    const at = scanned?.get(positionKey(frame));
    return at ? `${name}|${mask(at.context)}` : null;
  }

  /** The scanned sites of one file by line and column; null when it cannot be read or parsed. */
  private sitesIn(path: string, name: string): ReadonlyMap<string, ScanSite> | null {
    if (this.files.has(path)) return this.files.get(path)!;
    let sites: Map<string, ScanSite> | null = null;
    try {
      if (statSync(path).size <= DEFAULT_MAX_BYTES) {
        const scan = scanSource(readFileSync(path, 'utf8'), name);
        if (scan.error === null) sites = new Map(scan.sites.map((found) => [positionKey(found), found]));
      }
    } catch {
      sites = null; // an unreadable source costs this call its identity, not the comparison
    }
    this.files.set(path, sites);
    return sites;
  }
}

/** Where a comparison reads each run's sources: the roots of the projects they ran in. */
export interface SourceRoots {
  readonly a: string | null;
  readonly b: string | null;
}
