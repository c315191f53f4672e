/**
 * The GitHub workflows: detdrift's own CI (.github/workflows/ci.yml) and the ones users copy
 * (examples/workflows/detdrift.yml, detdrift-seeds.yml), read with the lockfile YAML reader
 * (diffing/lockfile/yaml.ts, which keeps every scalar a string) and held to what they promise:
 * jobs, matrix, least privilege, actions pinned by commit, no `pull_request_target`, no expression
 * pasted into a shell script.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseCommandLine } from '../../cli/args.js';
import type { CheckOptions } from '../../cli/check/options.js';
import { expandSeeds } from '../../cli/shared/seeds.js';
import { parseYaml, type YamlMap, type YamlValue } from '../../diffing/lockfile/yaml.js';
import { REPO } from '../helpers.js';

const CI = '.github/workflows/ci.yml';
const EXAMPLE = 'examples/workflows/detdrift.yml';

function workflow(file: string): { text: string; root: YamlMap } {
  const text = readFileSync(join(REPO, file), 'utf8');
  return { text, root: parseYaml(text, file).root as YamlMap };
}

const map = (value: YamlValue | undefined): YamlMap => {
  assert.ok(
    value !== null && typeof value === 'object' && !Array.isArray(value),
    `expected a mapping, got ${JSON.stringify(value)}`,
  );
  return value as YamlMap;
};
const list = (value: YamlValue | undefined): YamlValue[] => {
  assert.ok(Array.isArray(value), `expected a sequence, got ${JSON.stringify(value)}`);
  return value;
};
const steps = (job: YamlMap): YamlMap[] => list(job.steps).map(map);
/** The reader's mappings have no prototype; strict deepEqual compares prototypes too. */
const plain = (value: YamlValue | undefined): unknown => JSON.parse(JSON.stringify(value ?? null));

/** Every `uses:` in the workflow, whatever job it is in. */
function uses(root: YamlMap): string[] {
  return Object.values(map(root.jobs)).flatMap((job) =>
    steps(map(job))
      .map((step) => step.uses)
      .filter((use): use is string => typeof use === 'string'),
  );
}

/** What every workflow here promises, whatever it does. */
function assertHygiene(file: string): void {
  const { text, root } = workflow(file);
  assert.deepEqual(plain(root.permissions), { contents: 'read' }, `${file}: read-only token by default`);
  const code = text
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('#'))
    .join('\n');
  assert.doesNotMatch(code, /pull_request_target/, `${file}: never runs a pull request's code with write access`);
  for (const use of uses(root)) {
    assert.match(use, /^actions\/[\w-]+@[0-9a-f]{40}$/, `${file}: ${use} is pinned by a full commit SHA`);
    assert.match(
      text,
      new RegExp(`${use.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} # v4\\.\\d+\\.\\d+\\n`),
      `${file}: ${use} names its tag in a comment`,
    );
  }
  for (const [name, job] of Object.entries(map(root.jobs))) {
    assert.equal(
      map(job).permissions,
      undefined,
      `${file}: job ${name} asks for no more than the workflow's read-only token`,
    );
    for (const step of steps(map(job))) {
      if (typeof step.run === 'string')
        assert.doesNotMatch(
          step.run,
          /\$\{\{/,
          `${file}: job ${name} passes expressions to scripts through env, not into the script`,
        );
      if (typeof step.uses === 'string' && step.uses.startsWith('actions/checkout@'))
        assert.equal(map(step.with)['persist-credentials'], 'false');
    }
  }
}

test("detdrift's CI runs the tests on Linux, macOS and Windows under Node 20, 22 and 24, each to the end", () => {
  const { root } = workflow(CI);
  assertHygiene(CI);
  assert.deepEqual(Object.keys(map(root.on)).sort(), ['pull_request', 'push']);
  const test = map(map(root.jobs).test);
  assert.equal(test['runs-on'], '${{ matrix.os }}');
  const strategy = map(test.strategy);
  assert.equal(strategy['fail-fast'], 'false');
  assert.deepEqual(plain(strategy.matrix), {
    os: ['ubuntu-latest', 'macos-latest', 'windows-latest'],
    node: ['20', '22', '24'],
  });
  const runs = steps(test)
    .map((step) => step.run)
    .filter(Boolean);
  assert.deepEqual(runs.slice(-2), ['npm ci --no-audit --no-fund', 'npm test']);
  const setup = steps(test).find((step) => String(step.uses).startsWith('actions/setup-node@'))!;
  assert.equal(map(setup.with)['node-version'], '${{ matrix.node }}');
  assert.deepEqual(
    uses(root).map((use) => use.split('@')[0]),
    ['actions/checkout', 'actions/setup-node'],
  );
});

test('the example workflow records the seeds on Linux and macOS when a lockfile changes, then compares them with detdrift matrix', async () => {
  const { root } = workflow(EXAMPLE);
  assertHygiene(EXAMPLE);
  assert.deepEqual(Object.keys(map(root.on)), ['pull_request']);
  const paths = list(map(map(root.on).pull_request).paths);
  for (const lockfile of ['package-lock.json', 'pnpm-lock.yaml', 'yarn.lock'])
    assert.ok(paths.includes(lockfile), `runs when ${lockfile} changes`);
  const jobs = map(root.jobs);
  assert.deepEqual(Object.keys(jobs), ['record', 'compare']);

  const record = map(jobs.record);
  const strategy = map(record.strategy);
  assert.equal(strategy['fail-fast'], 'false');
  const matrix = map(strategy.matrix);
  assert.deepEqual(plain(matrix.os), ['ubuntu-latest', 'macos-latest']);
  assert.ok(list(matrix.seed).length > 0 && list(matrix.node).length > 0);
  const script = steps(record)
    .map((step) => step.run)
    .find((run) => String(run).includes('detdrift record')) as string;
  assert.match(script, /npx detdrift record --mode control --seed "\$SEED" --out "traces\/\$run" -- \$TEST_COMMAND/);
  assert.match(
    script,
    /run="\$\(echo "\$RUNNER_OS" \| tr '\[:upper:\]' '\[:lower:\]'\)-\$NODE_MAJOR-seed\$SEED"/,
    'traces/<os>-<node>-seed<N>',
  );
  const upload = steps(record).find((step) => String(step.uses).startsWith('actions/upload-artifact@'))!;
  assert.deepEqual(plain(upload.with), {
    name: '${{ env.RUN_NAME }}',
    path: 'traces/${{ env.RUN_NAME }}',
    'if-no-files-found': 'error',
    'retention-days': '7',
  });

  const compare = map(jobs.compare);
  assert.equal(compare.needs, 'record');
  assert.equal(compare['runs-on'], 'ubuntu-latest');
  const download = steps(compare).find((step) => String(step.uses).startsWith('actions/download-artifact@'))!;
  assert.deepEqual(plain(download.with), { path: 'traces', pattern: '*-seed*' });
  const comparing = steps(compare).find((step) => step.name === 'compare the platforms')!;
  assert.equal(
    comparing.run,
    'npx detdrift matrix traces --summary "$GITHUB_STEP_SUMMARY" --report html=detdrift-report.html',
  );
  assert.equal(comparing.shell, 'bash');
  const argv = String(comparing.run)
    .split(' ')
    .slice(2)
    .map((arg) => arg.replace('"$GITHUB_STEP_SUMMARY"', 'summary.md'));
  assert.equal((await parseCommandLine(argv, REPO)).kind, 'run', `detdrift accepts ${argv.join(' ')}`);
  const page = steps(compare).at(-1)!;
  assert.ok(String(page.uses).startsWith('actions/upload-artifact@'));
  assert.equal(page.if, '${{ !cancelled() }}', 'the page is kept when the runs diverge (matrix exits 1)');
  assert.equal(map(page.with).path, 'detdrift-report.html');
});

test('the seeds workflow checks one share of the seed list per matrix job, uploads each report, and merges them in a last job', async () => {
  const file = 'examples/workflows/detdrift-seeds.yml';
  const { root } = workflow(file);
  assertHygiene(file);
  assert.deepEqual(Object.keys(map(root.on)), ['pull_request', 'push']);
  const jobs = map(root.jobs);
  assert.deepEqual(Object.keys(jobs), ['check', 'merge']);
  const env = map(root.env);

  const check = map(jobs.check);
  const strategy = map(check.strategy);
  assert.equal(strategy['fail-fast'], 'false', 'a diverging shard does not cancel the others');
  const matrix = map(strategy.matrix);
  const shards = list(matrix.shards);
  assert.equal(shards.length, 1);
  const total = Number(shards[0]);
  assert.deepEqual(
    plain(matrix.shard),
    Array.from({ length: total }, (_, index) => String(index + 1)),
    'the matrix lists every shard 1 to N once',
  );
  const step = steps(check).find((entry) => String(entry.run).includes('detdrift check'))!;
  assert.equal(
    step.run,
    'npx detdrift check --seeds "$SEEDS" --shard "$SHARD" --out "$OUT/traces" --report json="$OUT/report.json" -- $TEST_COMMAND',
  );
  assert.deepEqual(plain(step.env), {
    SHARD: '${{ matrix.shard }}/${{ matrix.shards }}',
    OUT: 'detdrift-shard-${{ matrix.shard }}',
  });
  // What each job runs, with the workflow's values in place of the shell's variables.
  const shares = [];
  for (const shard of list(matrix.shard)) {
    const out = `detdrift-shard-${shard}`;
    const argv = [
      'check',
      '--seeds',
      String(env.SEEDS),
      '--shard',
      `${shard}/${total}`,
      '--out',
      `${out}/traces`,
      '--report',
      `json=${out}/report.json`,
      '--',
      ...String(env.TEST_COMMAND).split(' '),
    ];
    const invocation = await parseCommandLine(argv, REPO);
    assert.ok(invocation.kind === 'run', `detdrift accepts ${argv.join(' ')}`);
    shares.push((invocation.options as CheckOptions).seeds);
  }
  assert.deepEqual(
    shares.flat(),
    expandSeeds(String(env.SEEDS).split(',')).seeds,
    'the shares are the list, each seed once',
  );
  const [report, traces] = steps(check).filter((entry) => String(entry.uses).startsWith('actions/upload-artifact@'));
  assert.equal(report!.if, '${{ !cancelled() }}', "a diverging shard's report is uploaded too (check exits 1)");
  assert.deepEqual(plain(report!.with), {
    name: 'detdrift-report-shard-${{ matrix.shard }}',
    path: 'detdrift-shard-${{ matrix.shard }}/report.json',
    'if-no-files-found': 'error',
    'retention-days': '7',
  });
  assert.equal(traces!.if, '${{ failure() }}', 'traces are kept for a failing shard');
  assert.equal(map(traces!.with).path, 'detdrift-shard-${{ matrix.shard }}/traces');

  const merge = map(jobs.merge);
  assert.equal(merge.needs, 'check');
  assert.equal(merge.if, '${{ !cancelled() }}', 'the merge runs when shards diverge');
  const download = steps(merge).find((entry) => String(entry.uses).startsWith('actions/download-artifact@'))!;
  assert.deepEqual(plain(download.with), { path: 'shards', pattern: 'detdrift-report-shard-*' });
  assert.ok(
    String(map(report!.with).name).startsWith('detdrift-report-shard-'),
    'the pattern takes every shard report',
  );
  const merging = steps(merge).find((entry) => entry.name === 'merge the shards')!;
  assert.equal(
    merging.run,
    'npx detdrift merge shards --report github --report summary --report html=detdrift-report.html -- $TEST_COMMAND',
    'the replay command is made from the command the workflow names, not taken from a shard',
  );
  const argv = String(merging.run).replace('$TEST_COMMAND', String(env.TEST_COMMAND)).split(' ').slice(2);
  const saved = process.env.GITHUB_STEP_SUMMARY;
  process.env.GITHUB_STEP_SUMMARY = 'summary.md';
  try {
    assert.equal((await parseCommandLine(argv, REPO)).kind, 'run', `detdrift accepts ${argv.join(' ')}`);
  } finally {
    if (saved === undefined) delete process.env.GITHUB_STEP_SUMMARY;
    else process.env.GITHUB_STEP_SUMMARY = saved;
  }
  const page = steps(merge).at(-1)!;
  assert.ok(String(page.uses).startsWith('actions/upload-artifact@'));
  assert.equal(map(page.with).path, 'detdrift-report.html');
});

test('the eval workflow runs npm run eval on Linux and macOS by hand, and uploads the tables of each platform', () => {
  const file = '.github/workflows/eval.yml';
  assertHygiene(file);
  const { root } = workflow(file);
  assert.deepEqual(
    Object.keys(map(root.on)),
    ['workflow_dispatch'],
    'never on a push or a pull request: it installs from the registry',
  );
  const job = map(map(root.jobs).eval);
  assert.deepEqual(plain(map(map(job.strategy).matrix).os), ['ubuntu-latest', 'macos-latest']);
  const run = steps(job).find((step) => step.name === 'npm run eval')!;
  assert.match(String(run.run), /^npm run eval -- /);
  assert.equal(map(run.env).ONLY, '${{ inputs.only }}');
  const tables = steps(job).find((step) => String(step.uses).startsWith('actions/upload-artifact@'))!;
  assert.equal(tables.if, '${{ !cancelled() }}');
  assert.equal(map(tables.with).name, 'eval-tables-${{ matrix.os }}');
  assert.match(String(map(tables.with).path), /eval\/README\.md\neval\/results\//);
});
