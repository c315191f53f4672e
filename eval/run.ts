/**
 * `npm run eval [-- --only HARNESS] [--cache DIR] [--no-perturb] [--rescore]`: installs each harness's
 * upgrades from the
 * registry into a cache outside the repository, runs both methods on them, scores them against
 * eval/ground-truth, writes eval/results/HARNESS.PLATFORM.json and the tables in eval/README.md.
 * Not part of `npm test`: it needs the registry, and takes tens of minutes.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { HARNESSES, type Harness } from './harnesses.js';
import { installUpgrade } from './install.js';
import { readRecorded, recordTraces, runBump, runPerturb, runRaw, writeTimes, type PerturbResult } from './methods.js';
import { writeReadme } from './readme.js';
import { scoreUpgrade, type RawRuns, type Row, type Truth } from './score.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'bundle', 'main.js');

export interface HarnessResult {
  readonly harness: string;
  readonly platform: string;
  readonly node: string;
  readonly rows: readonly Row[];
  readonly perturb: (PerturbResult & { readonly upgrade: string }) | null;
}

function readTruth(harness: Harness): Record<string, Truth> {
  const file = join(REPO, 'eval', 'ground-truth', `${harness.name}.json`);
  const truth = (JSON.parse(readFileSync(file, 'utf8')) as { upgrades: Record<string, Truth> }).upgrades;
  const missing = harness.upgrades.filter((upgrade) => !truth[upgrade.id]).map((upgrade) => upgrade.id);
  if (missing.length) throw new Error(`${file}: no ground truth for ${missing.join(', ')}: write it before running`);
  return truth;
}

/** The logs with the cache folder written `<cache>`: the table is committed, and names no path of this machine. */
function withoutCache(raw: RawRuns, cache: string): RawRuns {
  const clean = (log: string) => log.split(cache).join('<cache>');
  return { base: [clean(raw.base[0]), clean(raw.base[1])], head: [clean(raw.head[0]), clean(raw.head[1])], ms: raw.ms };
}

function log(message: string): void {
  process.stderr.write(`eval: ${message}\n`);
}

function evaluate(harness: Harness, cache: string, perturb: boolean, rescore: boolean): HarnessResult {
  const truth = readTruth(harness);
  const previous = rescore ? readPrevious(harness) : null;
  const testPath = join('node_modules', harness.package, harness.testFile);
  const rows: Row[] = [];
  let perturbed: HarnessResult['perturb'] = null;
  for (const upgrade of harness.upgrades) {
    const label = `${harness.name} ${upgrade.dependency} ${upgrade.base} → ${upgrade.head}`;
    const name = `${upgrade.dependency} ${upgrade.base} → ${upgrade.head}`;
    if (rescore) {
      const out = join(cache, harness.name, upgrade.id, 'out');
      for (const seed of harness.seeds) {
        const { raw, bump } = readRecorded(out, seed);
        rows.push(scoreUpgrade(name, truth[upgrade.id]!, withoutCache(raw, cache), bump));
      }
      continue;
    }
    log(`${label}: installing`);
    const trees = installUpgrade(cache, harness, upgrade);
    const out = join(cache, harness.name, upgrade.id, 'out');
    log(`${label}: raw runs`);
    const raw = runRaw(trees, testPath, join(out, 'raw'));
    for (const seed of harness.seeds) {
      log(`${label}: detdrift bump, seed ${seed}`);
      const bump = runBump(CLI, trees, testPath, seed, join(out, `seed-${seed}`));
      writeTimes(out, raw, bump);
      recordTraces(CLI, trees, testPath, seed, join(out, `seed-${seed}`));
      const row = scoreUpgrade(name, truth[upgrade.id]!, withoutCache(raw, cache), bump);
      log(`${label}: raw ${row.outcome.raw}, detdrift ${row.detdrift.verdict} (${row.outcome.detdrift})`);
      rows.push(row);
    }
    if (perturb && upgrade === harness.upgrades.at(-1)) {
      log(`${label}: detdrift check --perturb on head`);
      const result = runPerturb(CLI, trees.head, testPath, harness.seeds[0]!, out);
      perturbed = { ...result, upgrade: `${upgrade.dependency}@${upgrade.head}` };
    }
  }
  if (previous) perturbed = previous.perturb;
  return {
    harness: harness.name,
    platform: process.platform,
    node: previous?.node ?? process.version,
    rows,
    perturb: perturbed,
  };
}

function resultsFile(name: string): string {
  return join(REPO, 'eval', 'results', `${name}.${process.platform}.json`);
}

/** The last results of this harness on this platform: `--rescore` keeps their perturb row and Node version. */
function readPrevious(harness: Harness): HarnessResult | null {
  const file = resultsFile(harness.name);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as HarnessResult) : null;
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    cache: { type: 'string', default: process.env.DETDRIFT_EVAL_CACHE ?? join(tmpdir(), 'detdrift-eval') },
    'no-perturb': { type: 'boolean', default: false },
    /** score again what the cache holds from the last run, without installing or running anything */
    rescore: { type: 'boolean', default: false },
  },
});
const chosen = HARNESSES.filter((harness) => !values.only || harness.name === values.only);
if (chosen.length === 0) {
  log(`--only ${values.only}: no such harness (${HARNESSES.map((harness) => harness.name).join(', ')})`);
  process.exit(2);
}
if (!existsSync(CLI)) {
  log(`${CLI} is missing: run npm run build first`);
  process.exit(2);
}
const results = join(REPO, 'eval', 'results');
mkdirSync(results, { recursive: true });
for (const harness of chosen) {
  const result = evaluate(harness, values.cache, !values['no-perturb'], values.rescore);
  writeFileSync(resultsFile(harness.name), `${JSON.stringify(result, null, 2)}\n`);
}
writeReadme(join(REPO, 'eval', 'README.md'), results);
log(`tables written to eval/README.md (cache: ${values.cache})`);
