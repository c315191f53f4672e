/**
 * `npm run fuzz`: the fuzz tests of test/fuzz with many more cases than `npm test` runs (20 times
 * as many by default; the kill test goes to its full 100). Reproduce a failure with the seed and
 * the count it names:
 *
 *   DETDRIFT_FUZZ_SEED=7 DETDRIFT_FUZZ_SCALE=50 npm run fuzz
 *   DETDRIFT_FUZZ_CASES=5000 npm run fuzz -- trace      (only the files whose name contains "trace")
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2);
const files = readdirSync(here)
  .filter(
    (name) => name.endsWith('.test.js') && (filters.length === 0 || filters.some((filter) => name.includes(filter))),
  )
  .sort()
  .map((name) => join(here, name));
const env: NodeJS.ProcessEnv = { ...process.env, DETDRIFT_FUZZ_SCALE: process.env.DETDRIFT_FUZZ_SCALE ?? '20' };
console.error(
  `fuzzing ${files.length} files, seed ${env.DETDRIFT_FUZZ_SEED ?? 1}, scale ${env.DETDRIFT_FUZZ_SCALE}${env.DETDRIFT_FUZZ_CASES ? `, ${env.DETDRIFT_FUZZ_CASES} cases each` : ''}`,
);
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=3600000', ...files], {
  stdio: 'inherit',
  env,
});
process.exit(result.status ?? 1);
