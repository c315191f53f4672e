import { TraceReader } from '../tracer/reader.js';
import { traceFiles } from './compare.js';

/**
 * Whether run B showed the world exactly what run A did: every process's outputs (writes, files,
 * checkpoints, exit code) equal, in order. Cheaper than a comparison: calls are not kept.
 */
export function sameOutputs(dirA: string, dirB: string): boolean {
  const filesA = traceFiles(dirA);
  const filesB = traceFiles(dirB);
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
