import type { Frame, SiteDef } from '../tracer/format.js';
import { packageName } from './keys.js';
import type { LoadedTrace, Rows } from './load.js';

/** What the project asked to leave out of the comparison (its config's `ignore`). */
export interface IgnoreRules {
  /** `path` (a file, or a directory ending in `/`) or `path:line`: project-relative, or `package/path` in a dependency */
  readonly sites: readonly string[];
  /** package names, without a version */
  readonly packages: readonly string[];
}

/**
 * The calls of a trace that take part in alignment: all but those whose call site (the first
 * frame kept) the rules name. A call whose stack was not taken (after the first calls of an API,
 * only a sample is, DETDRIFT_SITES) cannot be told apart, and stays in. Rows keep
 * their index, so a report still counts calls as the trace does.
 */
export function keptCalls(trace: LoadedTrace, rules: IgnoreRules | undefined): Rows {
  if (!rules || (rules.sites.length === 0 && rules.packages.length === 0)) return trace.calls;
  const packages = new Set(rules.packages);
  const isIgnored = (site: SiteDef | undefined) => {
    const frame = site?.frames[0];
    return frame !== undefined && (packages.has(packageName(frame) ?? '') || rules.sites.some((rule) => matches(rule, frame)));
  };
  return trace.calls.filter((kind) => kind.site === 0 || !isIgnored(trace.sites.get(kind.site)));
}

function matches(rule: string, frame: Frame): boolean {
  const name = packageName(frame);
  const file = name === null ? frame.file : name + frame.file.slice(frame.package!.length);
  if (rule.endsWith('/')) return file.startsWith(rule);
  const at = rule.lastIndexOf(':');
  if (at > 0 && /^\d+$/.test(rule.slice(at + 1))) return file === rule.slice(0, at) && frame.line === Number(rule.slice(at + 1));
  return file === rule;
}
