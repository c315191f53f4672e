/**
 * A CI matrix of traces: one directory per platform × Node × seed (`linux-20-seed42`), as the
 * workflow in examples/workflows/detdrift.yml uploads them. Which run each is (from its trace
 * header, not its name), which run it is compared with, and what a divergence is labeled. The
 * comparison itself is passed in: this folder reads traces but does not compare them.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { TRACE_EXTENSION } from '../tracer/format.js';
import { compareLineage } from '../tracer/lineage.js';
import { TraceReader } from '../tracer/reader.js';

export interface MatrixRun {
  /** the directory's name: `linux-20-seed42` */
  readonly name: string;
  readonly dir: string;
  /** from the root process's trace header: `linux`, `darwin`, `win32` */
  readonly platform: string;
  /** Node's major version: `20` */
  readonly node: string;
  readonly seed: string | null;
}

/**
 * `agree`; `platform-specific`: the run parts from a reference on another platform while the runs of
 * this seed agree within each of the two platforms; `node-specific`: it parts from a reference on
 * its own platform under another Node; `diverge`: anything else (the runs of one platform disagree).
 */
export type MatrixLabel = 'agree' | 'platform-specific' | 'node-specific' | 'diverge';

/** Tells whether two runs agree (the caller compares and remembers). */
export type Agrees = (a: MatrixRun, b: MatrixRun) => boolean;

const PLATFORM_ORDER = ['linux', 'darwin', 'win32'];

/** The runs below `dir`: each subdirectory holding trace files, in platform, Node, seed and name order. */
export function readMatrix(dir: string): MatrixRun[] {
  const runs: MatrixRun[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const sub = join(dir, entry.name);
    const traces = readdirSync(sub)
      .filter((name) => name.endsWith(TRACE_EXTENSION))
      .map((name) => name.slice(0, -TRACE_EXTENSION.length));
    if (traces.length === 0) continue;
    const root = traces.sort(compareLineage)[0]!;
    const reader = TraceReader.open(join(sub, root + TRACE_EXTENSION));
    const { platform, node, seed } = reader.header;
    reader.close();
    runs.push({ name: entry.name, dir: sub, platform, node: /^v?(\d+)/.exec(node)?.[1] ?? node, seed });
  }
  return runs.sort(byConfiguration);
}

/** The run named `name`; without a name, the first Linux run (else the first run). Null when the name is unknown. */
export function referenceOf(runs: readonly MatrixRun[], name: string | null): MatrixRun | null {
  if (name !== null) return runs.find((run) => run.name === name) ?? null;
  return runs.find((run) => run.platform === 'linux') ?? runs[0] ?? null;
}

export interface MatrixPlan {
  /** each run with the run it is compared with: the reference's platform and Node, the run's own seed */
  readonly pairs: ReadonlyArray<{ readonly run: MatrixRun; readonly reference: MatrixRun }>;
  /** runs whose seed the reference's platform and Node did not record */
  readonly unpaired: readonly MatrixRun[];
}

/** Comparing runs of different seeds says nothing: each seed has its own reference run. */
export function planMatrix(runs: readonly MatrixRun[], reference: MatrixRun): MatrixPlan {
  const pairs: Array<{ run: MatrixRun; reference: MatrixRun }> = [];
  const unpaired: MatrixRun[] = [];
  for (const run of runs) {
    const own = runs.find(
      (other) => other.platform === reference.platform && other.node === reference.node && other.seed === run.seed,
    );
    if (own === run) continue;
    if (own) pairs.push({ run, reference: own });
    else unpaired.push(run);
  }
  return { pairs, unpaired };
}

export function labelOf(run: MatrixRun, reference: MatrixRun, runs: readonly MatrixRun[], agrees: Agrees): MatrixLabel {
  if (agrees(reference, run)) return 'agree';
  if (run.platform === reference.platform) return run.node !== reference.node ? 'node-specific' : 'diverge';
  const within = (platform: string) => {
    const group = runs.filter((other) => other.platform === platform && other.seed === run.seed);
    return group.every((other) => other === group[0] || agrees(group[0]!, other));
  };
  return within(reference.platform) && within(run.platform) ? 'platform-specific' : 'diverge';
}

function byConfiguration(a: MatrixRun, b: MatrixRun): number {
  const rank = (run: MatrixRun) =>
    PLATFORM_ORDER.includes(run.platform) ? PLATFORM_ORDER.indexOf(run.platform) : PLATFORM_ORDER.length;
  return (
    rank(a) - rank(b) ||
    a.platform.localeCompare(b.platform) ||
    Number(a.node) - Number(b.node) ||
    String(a.seed).localeCompare(String(b.seed), 'en', { numeric: true }) ||
    (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)
  );
}
