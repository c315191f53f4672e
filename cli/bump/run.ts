import { causeIn } from '../../diffing/cause.js';
import { rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { attribute, callsOfRuns, type Attribution, type RunCalls } from '../../diffing/attribute.js';
import { compare, type Comparison } from '../../diffing/compare.js';
import { installsOf, versionIn } from '../../diffing/locate.js';
import { diffLockfiles, type LockfileChange, type Lockfile } from '../../diffing/lockfile/index.js';
import { diffScans, scanDirectory, type ScanDiff } from '../../diffing/scan/index.js';
import type { BumpVerdict, SeedView, WarmupView } from '../../report/types.js';
import type { Frame } from '../../tracer/format.js';
import type { CommandContext } from '../shared/options.js';
import { CliError, ExitStatus } from '../shared/errors.js';
import type { BumpOptions } from './options.js';
import { Progress } from '../shared/progress.js';
import { checkInstalled } from './installed.js';
import { LOCKFILE_NAMES } from '../../tracer/settings.js';
import { bumpLockfiles } from './lockfiles.js';
import { findProject } from '../shared/project.js';
import { recordRun } from '../shared/recording.js';
import { emitReport } from '../shared/output.js';
import { CauseStacks } from '../shared/stacks.js';
import { prepareOutDir } from '../shared/traces.js';
import { describeShare, seedList, seedView } from '../shared/seeds.js';
import { checkoutWorktree, installCommand, type Worktree } from './worktree.js';
import { makeWorkDir } from '../shared/workdir.js';
import { stopOnInterrupt } from '../shared/interrupt.js';
import { warmupAfter } from '../shared/warmup.js';

/**
 * `detdrift bump --base REF -- CMD`: runs CMD with the same seed on the base's dependency tree (a
 * worktree of REF with its own clean install, or a recorded `--base-trace`) and on head's, twice
 * each, and tells whether the bump changed the seed's run and why: the first divergence, its
 * cause, the lockfile change its stack runs through, and the clock and entropy sites the new
 * versions added (scanned), with the ones head reached.
 */
export async function run(options: BumpOptions, { logger }: CommandContext): Promise<number> {
  stopOnInterrupt();
  const project = findProject(options.cwd);
  if (!project.lockfile)
    throw new CliError('ERR_LOCKFILE_MISSING', `no lockfile (${LOCKFILE_NAMES.join(', ')}) in ${project.root}`);
  const lockfile = project.lockfile.file;
  const install = options.install ?? installCommand(lockfile);
  const locks = await bumpLockfiles(project.root, lockfile, options.base, options.head);
  const changes = diffLockfiles(locks.base, locks.head);
  // Each tree is checked against its lockfile at the versions the bump moved, and its direct dependencies.
  const versions = (side: 'from' | 'to') =>
    new Set(changes.flatMap((change) => (change[side] === null ? [] : [`${change.name}@${change[side]}`])));
  if (options.head === null)
    checkInstalled(
      project.root,
      locks.head,
      versions('to'),
      'head (the working tree)',
      `Run ${install.join(' ')} there, then bump again.`,
    );
  const progress = new Progress();
  const work = makeWorkDir('bump');
  const trees: Worktree[] = [];
  try {
    const tree = async (ref: string, lock: Lockfile, side: 'from' | 'to') => {
      progress.phase(`checking out ${ref} and installing its dependencies (${install.join(' ')})`);
      const worktree = await checkoutWorktree(project.root, ref, install);
      trees.push(worktree);
      checkInstalled(
        worktree.root,
        lock,
        versions(side),
        ref,
        `The install command (${install.join(' ')}) must install what the lockfile names.`,
      );
      return worktree.root;
    };
    const baseRoot = options.baseTrace ? null : await tree(options.base, locks.base, 'from');
    const headRoot = options.head ? await tree(options.head, locks.head, 'to') : project.root;
    const where = (root: string) => join(root, relative(project.root, options.cwd));

    const recordAt = async (name: string, root: string, seed: string | null) => {
      progress.update(`recording ${name}`);
      const out = join(work, name);
      prepareOutDir(out);
      await recordRun({ out, mode: options.mode, seed, command: options.command, cwd: where(root) }, 'pipe', logger);
      return out;
    };
    // Each tree has its own checkout, and so its own caches: the first run of each may be a warm-up, recorded again.
    const warmups: { tree: 'base' | 'head'; warmup: Omit<WarmupView, 'trees'> }[] = [];
    const recordFirst = async (
      tree: 'base' | 'head',
      prefix: string,
      root: string,
      seed: string | null,
      cold: boolean,
    ) => {
      const name = `${prefix}-${tree}-1`;
      const out = await recordAt(name, root, seed);
      const warmup = cold ? warmupAfter(options.warmup, options.command, where(root), out) : null;
      if (!warmup) return out;
      warmups.push({ tree, warmup });
      progress.update(`${tree}'s first run was a warm-up; recording it again`);
      return recordAt(name, root, seed);
    };
    // Each seed: base and head twice. The report is about the first seed the bump changed.
    let found: {
      seed: string | null;
      comparison: Comparison;
      verdict: BumpVerdict;
      traces: { a: string | null; b: string };
    } | null = null;
    if (options.shard) progress.phase(describeShare(options.shard, options.seeds));
    const checked: SeedView[] = [];
    for (const [index, seed] of options.seeds.entries()) {
      // Only the first seed's runs can find a tree's caches cold.
      const cold = index === 0;
      progress.phase(
        `seed ${seed ?? 'none'}: recording ${options.command.join(' ')} on base and head, twice each (${options.mode} mode)`,
      );
      const prefix = `seed-${seed ?? 'none'}`;
      const base = baseRoot
        ? [await recordFirst('base', prefix, baseRoot, seed, cold), await recordAt(`${prefix}-base-2`, baseRoot, seed)]
        : [];
      const head = [
        await recordFirst('head', prefix, headRoot, seed, cold),
        await recordAt(`${prefix}-head-2`, headRoot, seed),
      ];
      progress.clear();
      const comparison = compare(options.baseTrace ?? base[0]!, head[0]!, {
        codeChanged: true,
        changed: versions('to'),
        sources: { a: baseRoot, b: headRoot },
      });
      const baseTwice = base[1] ? compare(base[0]!, base[1]) : null;
      const verdict = bumpVerdict(comparison, baseTwice, compare(head[0]!, head[1]!));
      if (verdict === 'already-nondeterministic' && options.mode === 'observe') progress.phase(observeHint(baseTwice!));
      found = { seed, comparison, verdict, traces: { a: base[0] ?? null, b: head[0]! } };
      checked.push(seedView(seed, comparison, verdict));
      if (verdict !== 'unchanged') break;
    }
    const { seed, comparison, verdict, traces } = found!;
    // A blamed call whose stack was not sampled: its side's command, replaying its trace, takes it (a
    // --base-trace has no checkout to run).
    const stacks = new CauseStacks(comparison, logger);
    const rerun = (trace: string | null, root: string | null) =>
      trace && root ? { trace, command: options.command, cwd: where(root), seed } : null;
    await stacks.forCause(
      comparison.diverging?.cause ?? null,
      { a: rerun(traces.a, baseRoot), b: rerun(traces.b, headRoot) },
      progress,
    );
    const taken = stacks.framesOf(comparison.diverging?.cause ?? null);

    const scans = baseRoot
      ? scanChanges(changes, baseRoot, headRoot, callsOfRuns(comparison.diverging, taken), logger)
      : new Map<LockfileChange, ScanDiff>();
    const reachedByHead = taken && comparison.diverging?.cause?.side === 'b' ? [taken] : [];
    const attribution: Attribution = attribute(
      taken ?? causeStack(comparison),
      changes,
      scans,
      comparison.diverging?.b ?? null,
      reachedByHead,
    );
    const { status } = await emitReport(comparison, headRoot, options.json, {
      bump: { verdict, seed, attribution },
      reports: options.reports,
      stacks: stacks.list(),
      seeds: seedList(options.seeds, checked, options.shard),
      shard: options.shard,
      warmup: joinWarmups(warmups),
    });
    return verdict === 'unchanged' && status === ExitStatus.ok ? ExitStatus.ok : ExitStatus.divergence;
  } finally {
    for (const worktree of trees) await worktree.remove();
    rmSync(work, { recursive: true, force: true });
  }
}

/** The report's warm-up: the runners either tree warmed, and which trees had one. */
function joinWarmups(
  warmups: readonly { tree: 'base' | 'head'; warmup: Omit<WarmupView, 'trees'> }[],
): WarmupView | null {
  if (warmups.length === 0) return null;
  return {
    runners: [...new Set(warmups.flatMap(({ warmup }) => warmup.runners))],
    found: warmups[0]!.warmup.found,
    trees: warmups.map(({ tree }) => tree),
  };
}

/** Head against base, and each against itself: what the bump did to the seed's run. */
function bumpVerdict(baseVsHead: Comparison, baseTwice: Comparison | null, headTwice: Comparison): BumpVerdict {
  if (baseTwice?.verdict === 'diverge') return 'already-nondeterministic';
  if (headTwice.verdict === 'diverge') return 'made-nondeterministic';
  return baseVsHead.verdict === 'diverge' ? 'changed' : 'unchanged';
}

/**
 * Why base is nondeterministic in observe mode, where clocks and entropy are real: the calls
 * that parted base's two runs, and the mode that seeds them.
 */
function observeHint(baseTwice: Comparison): string {
  const sources = new Set<string>();
  for (const process of baseTwice.processes) {
    const row = process.cause?.row;
    if (!row) continue;
    const where = causeIn(process);
    const frame = (process.cause!.side === 'a' ? where.a : where.b)?.sites.get(row.event.site)?.frames[0];
    sources.add(frame ? `${row.event.api} at ${frame.file}:${frame.line}` : row.event.api);
  }
  const named = sources.size > 0 ? [...sources].join(', ') : 'a source detdrift does not intercept';
  return `base already runs differently twice in observe mode (real clocks and entropy): ${named}. Leave out --mode observe: control mode (the default) seeds entropy and runs a virtual clock, so base and head can be compared`;
}

/** The stack of the call the comparison blames, as the run that made it recorded it. */
function causeStack(comparison: Comparison): readonly Frame[] | null {
  const focus = comparison.diverging;
  const row = focus?.cause?.row;
  if (!focus || !row) return null;
  const where = causeIn(focus);
  const trace = focus.cause!.side === 'a' ? where.a : where.b;
  return trace?.sites.get(row.event.site)?.frames ?? null;
}

/**
 * Scans each changed package at both versions where both are installed as the lockfile says, told
 * the calls each run made there (`ran`); a package head adds is compared with nothing, so all of
 * its sites are added.
 */
function scanChanges(
  changes: readonly LockfileChange[],
  baseRoot: string,
  headRoot: string,
  ran: RunCalls,
  logger: CommandContext['logger'],
): Map<LockfileChange, ScanDiff> {
  const scans = new Map<LockfileChange, ScanDiff>();
  for (const change of changes) {
    if (change.to === null) continue;
    const before = change.from === null ? null : installed(baseRoot, change, change.from);
    const after = installed(headRoot, change, change.to);
    if ((change.from !== null && !before) || !after) {
      logger.debug(
        { name: change.name, before, after },
        'a changed package is not installed at the version its lockfile names; not scanned',
      );
      continue;
    }
    const scan = (dir: string, version: string, side: 'a' | 'b') =>
      scanDirectory(dir, { ran: ran[side].get(`${change.name}@${version}`) });
    scans.set(change, diffScans(before ? scan(before, change.from!, 'a') : { sites: [] }, scan(after, change.to, 'b')));
  }
  return scans;
}

/** Where `change`'s package is installed at `version`: its npm install path, else where installsOf finds it. */
function installed(root: string, change: LockfileChange, version: string): string | null {
  const path = change.key.startsWith('node_modules/') ? join(root, change.key) : null;
  return path !== null && versionIn(path) === version ? path : (installsOf(root, change.name).get(version) ?? null);
}
