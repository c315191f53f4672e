import { mkdirSync, rmSync } from 'node:fs';
import { causeIn } from '../../diffing/cause.js';
import { join, relative } from 'node:path';
import { attribute, callsOfRuns, type Attribution, type RunCalls } from '../../diffing/attribute.js';
import { compare, type Comparison } from '../../diffing/compare.js';
import { installsOf, versionIn } from '../../diffing/locate.js';
import { diffLockfiles, type LockfileChange, type Lockfile } from '../../diffing/lockfile/index.js';
import { diffScans, scanDirectory, type ScanDiff } from '../../diffing/scan/index.js';
import type { BumpVerdict, RunNames, SeedView, WarmupView } from '../../report/types.js';
import type { Frame } from '../../tracer/format.js';
import type { CommandContext } from '../shared/options.js';
import { CliError, ExitStatus } from '../shared/errors.js';
import type { BumpOptions } from './options.js';
import { Progress } from '../shared/progress.js';
import { checkInstalled } from './installed.js';
import { ownChanges } from './own-changes.js';
import { LOCKFILE_NAMES } from '../../tracer/settings.js';
import { bumpLockfiles } from './lockfiles.js';
import { findProject } from '../shared/project.js';
import { recordRun } from '../shared/recording.js';
import { assertRecorded } from '../shared/recorded.js';
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
  const work = options.out ?? makeWorkDir('bump');
  mkdirSync(work, { recursive: true });
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
    const baseRoot = options.baseTrace ? null : await tree(locks.refs.base, locks.base, 'from');
    const headRoot = locks.refs.head ? await tree(locks.refs.head, locks.head, 'to') : project.root;
    const where = (root: string) => join(root, relative(project.root, options.cwd));

    let recorded = 0;
    const recordAt = async (name: string, root: string, seed: string | null) => {
      progress.step(`recording ${name}`, recorded++, (baseRoot ? 4 : 2) * options.seeds.length);
      const out = join(work, name);
      prepareOutDir(out);
      const run = { out, mode: options.mode, seed, command: options.command, cwd: where(root) };
      assertRecorded(out, await recordRun(run, 'pipe', logger), runName(name));
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
    let found: Found | null = null;
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
      const headTwice = compare(head[0]!, head[1]!);
      const verdict = bumpVerdict(comparison, baseTwice, headTwice);
      // The report shows the comparison that decided the verdict, so its text and the exit status agree.
      const decided = (
        shown: Comparison,
        a: string | null,
        b: string,
        roots: Found['roots'],
        names: RunNames | null,
      ) => ({
        seed,
        verdict,
        comparison: shown,
        traces: { a, b },
        roots,
        names,
        baseVsHead: comparison,
      });
      found =
        verdict === 'already-nondeterministic'
          ? decided(baseTwice!, base[0]!, base[1]!, { a: baseRoot, b: baseRoot }, TWICE.base)
          : verdict === 'made-nondeterministic'
            ? decided(headTwice, head[0]!, head[1]!, { a: headRoot, b: headRoot }, TWICE.head)
            : decided(comparison, base[0] ?? null, head[0]!, { a: baseRoot, b: headRoot }, null);
      checked.push(seedView(seed, found.comparison, verdict));
      if (verdict !== 'unchanged') break;
    }
    const { seed, comparison, verdict, traces, roots, names, baseVsHead } = found!;
    // A blamed call whose stack was not sampled: its side's command, replaying its trace, takes it (a
    // --base-trace has no checkout to run).
    const stacks = new CauseStacks(comparison, logger);
    const rerun = (trace: string | null, root: string | null) =>
      trace && root ? { trace, command: options.command, cwd: where(root), seed } : null;
    if (options.confirm)
      await stacks.forCause(
        comparison.diverging?.cause ?? null,
        { a: rerun(traces.a, roots.a), b: rerun(traces.b, roots.b) },
        progress,
      );
    const taken = stacks.framesOf(comparison.diverging?.cause ?? null);

    const scans = baseRoot
      ? scanChanges(
          changes,
          baseRoot,
          headRoot,
          callsOfRuns(baseVsHead.diverging, comparison === baseVsHead ? taken : null),
          logger,
        )
      : new Map<LockfileChange, ScanDiff>();
    const inHead =
      verdict === 'made-nondeterministic' || (verdict === 'changed' && comparison.diverging?.cause?.side === 'b');
    const reachedByHead = taken && inHead ? [taken] : [];
    const attribution: Attribution = attribute(
      taken ?? causeStack(comparison),
      changes,
      scans,
      comparison.diverging?.b ?? null,
      reachedByHead,
    );
    const { status } = await emitReport(comparison, headRoot, options, {
      bump: {
        verdict,
        seed,
        attribution,
        ownChanges: await ownChanges(project.root, locks.refs.base, locks.refs.head),
      },
      reports: options.reports,
      stacks: stacks.list(),
      seeds: seedList(options.seeds, checked, options.shard),
      shard: options.shard,
      warmup: joinWarmups(warmups),
      runNames: names,
    });
    return verdict === 'unchanged' && status === ExitStatus.ok ? ExitStatus.ok : ExitStatus.divergence;
  } finally {
    for (const worktree of trees) await worktree.remove();
    if (options.out === null) rmSync(work, { recursive: true, force: true });
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

/** The seed a bump's report is about: the comparison that decided its verdict, and what it compared. */
interface Found {
  readonly seed: string | null;
  readonly verdict: BumpVerdict;
  /** base against head, or a tree against itself when that decided */
  readonly comparison: Comparison;
  readonly traces: { readonly a: string | null; readonly b: string };
  readonly roots: { readonly a: string | null; readonly b: string | null };
  /** the runs' names when they are not base and head */
  readonly names: RunNames | null;
  readonly baseVsHead: Comparison;
}

/** The runs a tree's comparison with itself names. */
const TWICE: Record<'base' | 'head', RunNames> = {
  base: Object.freeze({ a: 'base run 1', b: 'base run 2' }),
  head: Object.freeze({ a: 'head run 1', b: 'head run 2' }),
};

/** Head against base, and each against itself: what the bump did to the seed's run. */
function bumpVerdict(baseVsHead: Comparison, baseTwice: Comparison | null, headTwice: Comparison): BumpVerdict {
  if (baseTwice?.verdict === 'diverge') return 'already-nondeterministic';
  if (headTwice.verdict === 'diverge') return 'made-nondeterministic';
  return baseVsHead.verdict === 'diverge' ? 'changed' : 'unchanged';
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

/** A bump's run as the user knows it: `seed-42-base-1` is "seed 42's run 1 on base". */
function runName(dir: string): string {
  const [, seed, tree, index] = /^seed-(.*)-(base|head)-(\d+)$/.exec(dir) ?? [];
  return tree === undefined ? dir : `seed ${seed}'s run ${index} on ${tree}`;
}
