import type { Alignment } from './align.js';
import type { LoadedTrace, Row, RowKind } from './load.js';

export type Reason = 'value' | 'structure' | 'output' | 'missing';

/** The first place two runs part, in terms of both traces. */
export interface Divergence {
  readonly reason: Reason;
  /** call indexes (outputs: the number of calls made before the output) */
  readonly indexA: number;
  readonly indexB: number;
  readonly a: Row | null;
  readonly b: Row | null;
}

/** The first output (write, file, checkpoint, exit) that differs or exists in one run only. */
export function firstOutputDivergence(a: LoadedTrace, b: LoadedTrace): Divergence | null {
  const length = Math.max(a.outputs.length, b.outputs.length);
  for (let i = 0; i < length; i++) {
    const both = i < a.outputs.length && i < b.outputs.length;
    if (both && a.outputs.kind(i).api === b.outputs.kind(i).api && a.outputs.sameValue(i, b.outputs, i)) continue;
    const rowA = a.outputs.at(i) ?? null;
    const rowB = b.outputs.at(i) ?? null;
    // A trace that stops early (a crash, a kill) is missing its outputs, not writing other ones.
    const truncated = (rowA === null && !a.ending.complete) || (rowB === null && !b.ending.complete);
    return {
      reason: truncated ? 'missing' : 'output',
      indexA: rowA ? a.outputs.callsBefore(i) : a.calls.length,
      indexB: rowB ? b.outputs.callsBefore(i) : b.calls.length,
      a: rowA,
      b: rowB,
    };
  }
  return null;
}

/**
 * A value that two runs of the same seed should share: anything control mode or the program's own
 * stub decided, and the uncontrolled sources that do not vary between runs on one machine
 * (directory listings, host identity but the pid). Clocks and entropy always differ in observe
 * mode, so their values alone are never the first divergence; nor do stat times, which are clock
 * readings of a kind: a file the run writes has a new one in every run, and so has every file of
 * another checkout (a bump's base and head).
 */
export function shouldAgree(kind: RowKind): boolean {
  const { family, api } = kind.spec;
  return (
    kind.control !== 0 || (family === 'fs' && api !== 'fs.stat') || (family === 'process' && api !== 'process.pid')
  );
}

/** The earliest of: a value that should agree and does not, the structural divergence, the output divergence. */
export function firstDivergence(
  alignment: Alignment,
  output: Divergence | null,
  a: LoadedTrace,
  b: LoadedTrace,
): Divergence | null {
  const candidates: Divergence[] = [];
  const structural = alignment.structural;
  if (structural) {
    const aEnded = structural.a === null && !a.ending.complete;
    const bEnded = structural.b === null && !b.ending.complete;
    candidates.push({
      reason: aEnded || bEnded ? 'missing' : 'structure',
      indexA: structural.indexA,
      indexB: structural.indexB,
      a: structural.a,
      b: structural.b,
    });
  }
  if (output) candidates.push(output);
  if (candidates.length === 0) return null;
  const value = firstValueDivergence(alignment, a, b);
  if (value) candidates.push(value);
  return candidates.reduce((best, next) =>
    next.indexA < best.indexA || (next.indexA === best.indexA && rank(next) < rank(best)) ? next : best,
  );
}

const RANKS: Record<Reason, number> = { value: 0, structure: 1, missing: 2, output: 3 };
function rank(divergence: Divergence): number {
  return RANKS[divergence.reason];
}

/** The first matched call whose value differs where it should agree. */
function firstValueDivergence({ pairs }: Alignment, a: LoadedTrace, b: LoadedTrace): Divergence | null {
  for (let indexA = 0; indexA < pairs.end; indexA++) {
    const indexB = pairs.partnerOfA(indexA);
    if (indexB < 0 || a.calls.sameValue(indexA, b.calls, indexB) || !shouldAgree(a.calls.kind(indexA))) continue;
    return { reason: 'value', indexA, indexB, a: a.calls.at(indexA)!, b: b.calls.at(indexB)! };
  }
  return null;
}
