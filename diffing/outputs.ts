import { TraceReader } from '../tracer/reader.js';
import { traceFiles } from './compare.js';

/** Where two runs parted in what they showed: the process, and how many of its outputs to compare. */
export interface OutputPrefix {
  readonly lineage: string;
  readonly outputs: number;
}

/**
 * Whether run B showed the world exactly what run A did: every process's outputs (writes, files,
 * checkpoints, exit code) equal, in order. With `through`, only that process's first outputs, up to
 * the one where A parted from the run it was compared with: what came after may depend on values
 * drawn later, which are not what made the runs part. Cheaper than a comparison: calls are not kept.
 */
export function sameOutputs(dirA: string, dirB: string, through: OutputPrefix | null = null): boolean {
  const filesA = traceFiles(dirA);
  const filesB = traceFiles(dirB);
  if (through) {
    const fileA = filesA.get(through.lineage);
    const fileB = filesB.get(through.lineage);
    return fileA !== undefined && fileB !== undefined && equal(outputsOf(fileA).slice(0, through.outputs), outputsOf(fileB).slice(0, through.outputs));
  }
  if (filesA.size !== filesB.size) return false;
  for (const [lineage, fileA] of filesA) {
    const fileB = filesB.get(lineage);
    if (!fileB || !equal(outputsOf(fileA), outputsOf(fileB))) return false;
  }
  return true;
}

function outputsOf(file: string): string[] {
  const reader = TraceReader.open(file);
  try {
    const outputs: string[] = [];
    for (const event of reader.events()) {
      if (event.family === 'output') outputs.push(`${event.api}\u0000${JSON.stringify(event.value)}`);
    }
    return outputs;
  } finally {
    reader.close();
  }
}

function equal(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
