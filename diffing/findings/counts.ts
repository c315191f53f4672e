/** The report's counts: calls per API and per site in each run, and values nothing controls. */
import type { ProcessComparison } from '../compare.js';
import type { LoadedTrace, RowKind } from '../load.js';
import type { CountView } from '../../report/types.js';
import type { Originals } from './events.js';

/** Matched calls whose values differ and that nothing controls, up to where the alignment stopped. */
export function uncontrolledValues({ alignment, a, b }: ProcessComparison): number {
  if (!alignment || !a || !b) return 0;
  let count = 0;
  for (let indexA = 0; indexA < alignment.pairs.end; indexA++) {
    const indexB = alignment.pairs.partnerOfA(indexA);
    if (indexB >= 0 && a.calls.kind(indexA).control === 0 && !a.calls.sameValue(indexA, b.calls, indexB)) count++;
  }
  return count;
}

export function counts(
  process: ProcessComparison | null,
  label: (kind: RowKind, trace: LoadedTrace) => string,
  limit: number,
): CountView[] {
  if (!process) return [];
  const table = new Map<string, { a: number; b: number }>();
  const add = (trace: LoadedTrace | null, side: 'a' | 'b') => {
    for (const [kind, count] of trace?.calls.kindCounts() ?? []) {
      const key = label(kind, trace!);
      const entry = table.get(key) ?? { a: 0, b: 0 };
      entry[side] += count;
      table.set(key, entry);
    }
  };
  add(process.a, 'a');
  add(process.b, 'b');
  return [...table]
    .map(([key, { a, b }]) => ({ key, a, b }))
    .sort((x, y) => Math.abs(y.a - y.b) - Math.abs(x.a - x.b) || (x.key < y.key ? -1 : x.key > y.key ? 1 : 0))
    .slice(0, limit);
}

export function siteLabel(kind: RowKind, trace: LoadedTrace, originals: Originals): string {
  const generated = trace.sites.get(kind.site)?.frames[0];
  const frame = generated && originals(trace).frame(generated);
  return frame ? `${kind.spec.api} ${frame.file}:${frame.line}:${frame.column}` : `${kind.spec.api} (stack not taken)`;
}
