/**
 * `npm run eval [-- --only HARNESS] [--cache DIR]`: installs each harness's upgrades from the
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
import { recordTraces, runBump, runPerturb, runRaw, type PerturbResult } from './methods.js';
import { writeReadme } from './readme.js';
import { scoreUpgrade, type Row, type Truth } from './score.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(REPO, 'dist', 'cli', 'main.js');

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

function log(message: string): void {
  process.stderr.write(`eval: ${message}\n`);
}

function evaluate(harness: Harness, cache: string, perturb: boolean): HarnessResult {
  const truth = readTruth(harness);
  const testPath = join('node_modules', harness.package, harness.testFile);
  const rows: Row[] = [];
  let perturbed: HarnessResult['perturb'] = null;
  for (const upgrade of harness.upgrades) {
    const label = `${harness.name} ${upgrade.dependency} ${upgrade.base} → ${upgrade.head}`;
    log(`${label}: installing`);
    const trees = installUpgrade(cache, harness, upgrade);
    const out = join(cache, harness.name, upgrade.id, 'out');
    log(`${label}: raw runs`);
    const raw = runRaw(trees, testPath, join(out, 'raw'));
    for (const seed of harness.seeds) {
      log(`${label}: detdrift bump, seed ${seed}`);
      const bump = runBump(CLI, trees, testPath, seed, join(out, `seed-${seed}`));
      recordTraces(CLI, trees, testPath, seed, join(out, `seed-${seed}`));
      const row = scoreUpgrade(`${upgrade.dependency} ${upgrade.base} → ${upgrade.head}`, truth[upgrade.id]!, raw, bump);
      log(`${label}: raw ${row.outcome.raw}, detdrift ${row.detdrift.verdict} (${row.outcome.detdrift})`);
      rows.push(row);
    }
    if (perturb && upgrade === harness.upgrades.at(-1)) {
      log(`${label}: detdrift check --perturb on head`);
      const result = runPerturb(CLI, trees.head, testPath, harness.seeds[0]!, out);
      perturbed = { ...result, upgrade: `${upgrade.dependency}@${upgrade.head}` };
    }
  }
  return { harness: harness.name, platform: process.platform, node: process.version, rows, perturb: perturbed };
}

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    cache: { type: 'string', default: process.env.DETDRIFT_EVAL_CACHE ?? join(tmpdir(), 'detdrift-eval') },
    'no-perturb': { type: 'boolean', default: false },
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
  const result = evaluate(harness, values.cache, !values['no-perturb']);
  writeFileSync(join(results, `${harness.name}.${result.platform}.json`), `${JSON.stringify(result, null, 2)}\n`);
}
writeReadme(join(REPO, 'eval', 'README.md'), results);
log(`tables written to eval/README.md (cache: ${values.cache})`);
