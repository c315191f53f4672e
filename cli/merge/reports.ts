import type { CauseView, Report, SeedView } from '../../report/types.js';
import { CliError } from '../shared/errors.js';
import { shareBounds } from '../shared/seeds.js';

/** A report and the file it was read from, which every error names. */
export interface ReportPart {
  readonly file: string;
  readonly report: Report;
}

/**
 * The report one run over every shard's seeds gives: the report of the first seed that diverged,
 * in list order (shards by index, each in its own order), else of the first shard whose command
 * failed in every run, else of the last; with every shard's seeds, each marked with its shard.
 * Reports without `shard` (separate runs) are taken in the order given. The parts must be one
 * whole set: one command, every shard of one list once, no seed twice (ERR_SHARDS).
 */
export function mergeReports(parts: readonly ReportPart[]): Report {
  const ordered = wholeSet(parts);
  const seen = new Map<string | null, string>();
  const seeds = ordered.flatMap(({ file, report }) =>
    seedsOf(report).map((entry): SeedView => {
      const other = seen.get(entry.seed);
      if (other !== undefined) throw shards(`seed ${entry.seed ?? 'none'} is in both ${other} and ${file}`);
      seen.set(entry.seed, file);
      return { ...entry, shard: report.shard?.index ?? null };
    }),
  );
  const body =
    ordered.find(({ report }) => seedsOf(report).some((entry) => entry.verdict === 'diverge')) ??
    ordered.find(({ report }) => failedEveryRun(report)) ??
    ordered.at(-1)!;
  return { ...body.report, seeds, shard: null };
}

/**
 * The merged report's exit status, as `check` and `bump` give theirs: 1 when a seed diverged, 2 when the
 * command failed in every run.
 */
export function mergedStatus(report: Report): number {
  if (report.verdict === 'diverge' || report.seeds?.some((entry) => entry.verdict === 'diverge')) return 1;
  return failedEveryRun(report) ? 2 : 0;
}

/** Runs that agree in failing every time are no check (cli/check/run.ts). */
function failedEveryRun(report: Report): boolean {
  return report.failure?.statuses.every((status) => status !== 0) ?? false;
}

/** The parts in list order, once they are checked to be one whole set of shards (or of unsharded reports). */
function wholeSet(parts: readonly ReportPart[]): ReportPart[] {
  const bumps = parts.filter(({ report }) => report.bump);
  if (bumps.length > 0 && bumps.length < parts.length)
    throw shards(`bump's reports (${names(bumps)}) and check's cannot be merged: merge the shards of one command`);
  const sharded = parts.filter(({ report }) => report.shard);
  if (sharded.length === 0) return [...parts];
  if (sharded.length < parts.length)
    throw shards(
      `reports of no shard (${names(parts.filter(({ report }) => !report.shard))}) and shards cannot be merged: merge one set of shards`,
    );
  const reference = sharded[0]!;
  const { total, seeds } = reference.report.shard!;
  const byIndex = new Map<number, ReportPart>();
  for (const part of sharded) {
    const shard = part.report.shard!;
    if (shard.total !== total || shard.seeds !== seeds) {
      throw shards(
        `${reference.file} is shard ${nameOf(reference)} of ${seeds} seeds, ${part.file} shard ${nameOf(part)} of ${shard.seeds}: merge the shards of one seed list`,
      );
    }
    const twin = byIndex.get(shard.index);
    if (twin) throw shards(`shard ${nameOf(part)} is both ${twin.file} and ${part.file}`);
    const share = shareBounds(seeds, shard).length;
    const listed = seedsOf(part.report).length;
    if (listed !== share)
      throw shards(`${part.file} (shard ${nameOf(part)}) lists ${listed} seeds; its share of ${seeds} is ${share}`);
    byIndex.set(shard.index, part);
  }
  // Every part is one shard: with fewer parts than `total`, some are missing (a list of `total` is not made).
  if (byIndex.size < total) {
    const missing: number[] = [];
    for (let index = 1; index <= total && missing.length < MISSING_SHOWN; index++)
      if (!byIndex.has(index)) missing.push(index);
    const more = total - byIndex.size - missing.length;
    throw shards(
      `${missing.map((index) => `shard ${index}/${total}`).join(', ')}${more > 0 ? ` and ${more} more` : ''} ${missing.length === 1 && more === 0 ? 'is' : 'are'} missing: a shard's job ended before writing its report, or its artifact was not downloaded`,
    );
  }
  return [...byIndex.entries()].sort(([a], [b]) => a - b).map(([, part]) => part);
}

/** A report's seeds: its list, or the one seed of a report that has none (one seed, no shard). */
function seedsOf(report: Report): readonly SeedView[] {
  if (report.seeds) return report.seeds;
  const diverged = report.bump ? report.bump.verdict !== 'unchanged' : report.verdict === 'diverge';
  return [
    {
      seed: report.runs.a?.seed ?? report.runs.b?.seed ?? null,
      verdict: diverged ? 'diverge' : 'agree',
      cause: diverged && report.cause ? causeInWords(report.cause) : null,
      bump: report.bump?.verdict ?? null,
    },
  ];
}

/** The cause in the few words a seed list gives it (`Math.random at app.js:5`). */
function causeInWords(cause: CauseView): string {
  if (cause.kind === 'outside') return 'not explained by an intercepted source';
  const where = cause.site ? `at ${cause.site.file}:${cause.site.line}` : 'at an unsampled call site';
  return [cause.kind === 'ordering' ? 'an ordering difference at' : '', cause.api, where].filter(Boolean).join(' ');
}

/** How many missing shards ERR_SHARDS names. */
const MISSING_SHOWN = 10;

const nameOf = ({ report }: ReportPart) => `${report.shard!.index}/${report.shard!.total}`;

const names = (parts: readonly ReportPart[]) => parts.map(({ file }) => file).join(', ');

function shards(message: string): CliError {
  return new CliError('ERR_SHARDS', message);
}
