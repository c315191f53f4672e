import { TraceReader } from '../tracer/reader.js';
import { traceFiles } from './compare.js';
import { isRunners, type RunnerProfile } from './runners.js';

/** Where two runs parted in what they showed: the process, and how many of its outputs to compare. */
export interface OutputPrefix {
  readonly lineage: string;
  /** outputs of run A before this index in its trace (the runners' own among them are left out) */
  readonly outputs: number;
}

/**
 * Whether run B showed the world exactly what run A did: every process's outputs (writes, files,
 * checkpoints, exit code) equal, in order, but the test runners' own (`runners`, as the comparison
 * found them: their timings differ in every run). With `through`, only that process's first
 * outputs, up to the one where A parted from the run it was compared with: what came after may
 * depend on values drawn later, which are not what made the runs part. Cheaper than a comparison:
 * calls are not kept.
 */
export function sameOutputs(
  dirA: string,
  dirB: string,
  through: OutputPrefix | null = null,
  runners: readonly RunnerProfile[] = [],
): boolean {
  return sameOutputsAs(dirA, through, runners)(dirB);
}

/**
 * sameOutputs against one run A, for many runs B (a bisection's probes, each a re-run of A): A's
 * outputs are read once, at the first B that needs them, not again for every probe. With
 * `through`, B is read only as far as it takes to show as many outputs as A did there: what B
 * holds after them, damage included, is not looked at (and nothing at all when A showed none).
 */
export function sameOutputsAs(
  dirA: string,
  through: OutputPrefix | null = null,
  runners: readonly RunnerProfile[] = [],
): (dirB: string) => boolean {
  const filesA = traceFiles(dirA);
  const shownByA = new Map<string, string[]>();
  const shown = (lineage: string, file: string) => {
    let outputs = shownByA.get(lineage);
    if (outputs === undefined) shownByA.set(lineage, (outputs = outputsOf(file, runners, through?.outputs)));
    return outputs;
  };
  return (dirB) => {
    const filesB = traceFiles(dirB);
    if (through) {
      const fileA = filesA.get(through.lineage);
      const fileB = filesB.get(through.lineage);
      if (fileA === undefined || fileB === undefined) return false;
      const outputsA = shown(through.lineage, fileA);
      return equal(outputsA, outputsOf(fileB, runners, Infinity, outputsA.length));
    }
    if (filesA.size !== filesB.size) return false;
    for (const [lineage, fileA] of filesA) {
      const fileB = filesB.get(lineage);
      if (!fileB || !equal(shown(lineage, fileA), outputsOf(fileB, runners))) return false;
    }
    return true;
  };
}

/** A trace's outputs but the runners' own, among its first `before` outputs; the first `keep` of them. */
function outputsOf(file: string, runners: readonly RunnerProfile[], before = Infinity, keep = Infinity): string[] {
  if (keep === 0) return [];
  const reader = TraceReader.open(file);
  try {
    const outputs: string[] = [];
    const apis = reader.header.apis;
    let index = 0;
    // scan, not events(): a trace of a million calls and forty outputs makes no object per call
    reader.scan({
      chunk() {},
      event({ apiId, site, value }) {
        const { api, family } = apis[apiId]!;
        if (family !== 'output') return false;
        if (index++ >= before) return true;
        if (site === 0 || !isRunners(reader.sites.get(site), runners))
          outputs.push(`${api}\u0000${JSON.stringify(value)}`);
        return outputs.length >= keep;
      },
    });
    return outputs;
  } finally {
    reader.close();
  }
}

function equal(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
