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
  const filesA = traceFiles(dirA);
  const filesB = traceFiles(dirB);
  if (through) {
    const fileA = filesA.get(through.lineage);
    const fileB = filesB.get(through.lineage);
    if (fileA === undefined || fileB === undefined) return false;
    const shown = outputsOf(fileA, runners, through.outputs);
    return equal(shown, outputsOf(fileB, runners).slice(0, shown.length));
  }
  if (filesA.size !== filesB.size) return false;
  for (const [lineage, fileA] of filesA) {
    const fileB = filesB.get(lineage);
    if (!fileB || !equal(outputsOf(fileA, runners), outputsOf(fileB, runners))) return false;
  }
  return true;
}

/** A trace's outputs but the runners' own, among its first `before` outputs. */
function outputsOf(file: string, runners: readonly RunnerProfile[], before = Infinity): string[] {
  const reader = TraceReader.open(file);
  try {
    const outputs: string[] = [];
    let index = 0;
    for (const event of reader.events()) {
      if (event.family !== 'output') continue;
      if (index++ >= before) break;
      if (event.site === 0 || !isRunners(reader.sites.get(event.site), runners))
        outputs.push(`${event.api}\u0000${JSON.stringify(event.value)}`);
    }
    return outputs;
  } finally {
    reader.close();
  }
}

function equal(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
