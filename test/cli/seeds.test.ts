/**
 * Seed lists (`--seeds 1..1000`, `1,5,9`, `1..10,42`): what they expand to, what `check` and `bump`
 * make of them, and the coded error each bad list gets.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCommandLine } from '../../cli/args.js';
import { CliError } from '../../cli/shared/errors.js';
import type { BumpOptions } from '../../cli/bump/options.js';
import type { CheckOptions } from '../../cli/check/options.js';
import type { CommonOptions } from '../../cli/shared/options.js';
import { describeShare, expandSeeds, MAX_SEEDS, shareOf } from '../../cli/shared/seeds.js';
import { project } from '../helpers.js';

const dir = project({ 'package.json': { name: 'app', version: '1.0.0' } });

async function options<O extends CommonOptions>(args: readonly string[]): Promise<O> {
  const invocation = await parseCommandLine(args, dir);
  assert.ok(invocation.kind === 'run');
  return invocation.options as O;
}

const refusal = async (args: readonly string[]) => {
  try {
    await parseCommandLine(args, dir);
  } catch (error) {
    assert.ok(error instanceof CliError, String(error));
    return `${error.code}: ${error.message}`;
  }
  return assert.fail(`${args.join(' ')} was accepted`);
};

test('a seed list expands ranges in place and keeps single seeds as typed', () => {
  assert.deepEqual(expandSeeds(['1..3', '42', '0x2a', '007', ' 9..9 ']).seeds, [
    '1',
    '2',
    '3',
    '42',
    '0x2a',
    '007',
    '9',
  ]);
  assert.equal(expandSeeds([`1..${MAX_SEEDS}`]).seeds?.length, MAX_SEEDS);
});

test('a bad seed list is refused with what is wrong, before a range is expanded', () => {
  const problem = (items: string[]) => expandSeeds(items).problem;
  assert.equal(problem(['10..1']), '10..1 runs backwards; write 1..10');
  assert.equal(problem(['1..5', '3']), 'seed 3 is named twice');
  assert.equal(problem(['1', '']), '"" is neither a seed (42, 0x2a) nor a range of decimal seeds (1..1000)');
  assert.equal(problem(['0x1..0x9']), '"0x1..0x9" is neither a seed (42, 0x2a) nor a range of decimal seeds (1..1000)');
  assert.equal(problem(['1...3']), '"1...3" is neither a seed (42, 0x2a) nor a range of decimal seeds (1..1000)');
  assert.equal(problem(['-1..3']), '"-1..3" is neither a seed (42, 0x2a) nor a range of decimal seeds (1..1000)');
  assert.equal(
    problem(['1..99999999999999999999']),
    '1..99999999999999999999: the ends of a range are integers up to 2^53-1',
  );
  assert.equal(
    problem(['0..10000000000000']),
    `more than ${MAX_SEEDS} seeds`,
    'refused without expanding ten trillion seeds',
  );
  assert.equal(problem(['5', `1..${MAX_SEEDS}`]), `more than ${MAX_SEEDS} seeds`);
});

test('check and bump take --seeds; --seed still works; both at once is a usage error', async () => {
  const cmd = ['--', 'node', 'app.js'];
  assert.deepEqual((await options<CheckOptions>(['check', '--seeds', '1..3,42', ...cmd])).seeds, ['1', '2', '3', '42']);
  assert.deepEqual((await options<CheckOptions>(['check', '--seed', '7', ...cmd])).seeds, ['7']);
  assert.deepEqual((await options<CheckOptions>(['check', ...cmd])).seeds, [null]);
  const bump = ['bump', '--base', 'main'];
  assert.deepEqual((await options<BumpOptions>([...bump, '--seeds', '5,1..2', ...cmd])).seeds, ['5', '1', '2']);
  assert.deepEqual((await options<BumpOptions>([...bump, '--seed', '1', '--seed', '0x2a', ...cmd])).seeds, [
    '1',
    '0x2a',
  ]);
  assert.deepEqual((await options<BumpOptions>([...bump, ...cmd])).seeds, [null]);
  assert.equal(
    await refusal(['check', '--seed', '1', '--seeds', '2..3', ...cmd]),
    'ERR_USAGE: give --seed or --seeds, not both',
  );
  assert.equal(
    await refusal(['bump', '--base', 'main', '--seeds', '1..10,5', ...cmd]),
    'ERR_OPTION_VALUE: --seeds got "1..10,5": seed 5 is named twice; allowed: seeds and ranges of decimal seeds, comma-separated (1..1000, 1,5,9, 1..10,42)',
  );
  assert.match(
    await refusal(['check', '--seeds', '9..1', ...cmd]),
    /^ERR_OPTION_VALUE: --seeds got "9\.\.1": 9\.\.1 runs backwards; write 1\.\.9; allowed: /,
  );
  assert.match(
    await refusal(['check', '--seeds', '1,,2', ...cmd]),
    /^ERR_OPTION_VALUE: --seeds got "1,,2": "" is neither a seed/,
  );
});

test('--shard I/N takes contiguous shares, the first ones a seed longer, as Playwright does: in order, they are the list', () => {
  const list = Array.from({ length: 10 }, (_, index) => String(index + 1));
  const shares = [1, 2, 3, 4].map((index) => shareOf(list, { index, total: 4 }));
  assert.deepEqual(shares, [
    ['1', '2', '3'],
    ['4', '5', '6'],
    ['7', '8'],
    ['9', '10'],
  ]);
  assert.deepEqual(shares.flat(), list);
  assert.deepEqual(
    [1, 2, 3].map((index) => shareOf(['a', 'b', 'c'], { index, total: 3 })),
    [['a'], ['b'], ['c']],
  );
  assert.deepEqual(shareOf(list, { index: 1, total: 1 }), list);
  assert.equal(describeShare({ index: 2, total: 4, seeds: 10 }, shares[1]!), 'shard 2/4: 3 of 10 seeds, 4 to 6');
});

test('check and bump run their shard of the seeds; a bad shard, or one with no seed to run, is refused', async () => {
  const cmd = ['--', 'node', 'app.js'];
  const check = await options<CheckOptions>(['check', '--seeds', '1..10', '--shard', '2/4', ...cmd]);
  assert.deepEqual([check.seeds, check.seed, check.shard], [['4', '5', '6'], '4', { index: 2, total: 4, seeds: 10 }]);
  const bump = await options<BumpOptions>(['bump', '--base', 'main', '--seeds', '1..10,42', '--shard', '4/4', ...cmd]);
  assert.deepEqual([bump.seeds, bump.shard], [['10', '42'], { index: 4, total: 4, seeds: 11 }]);
  assert.equal((await options<CheckOptions>(['check', '--seeds', '1..3', ...cmd])).shard, null);
  for (const shard of ['0/4', '5/4', '2/', '/4', 'a/b', '2 of 4', '1/0', '1.5/4']) {
    assert.equal(
      await refusal(['check', '--seeds', '1..8', '--shard', shard, ...cmd]),
      `ERR_OPTION_VALUE: --shard got ${JSON.stringify(shard)}; allowed: I/N, the I-th of N shares of the seeds (1 <= I <= N), e.g. 3/8`,
    );
  }
  assert.equal(
    await refusal(['check', '--seeds', '1..4', '--shard', '1/8', ...cmd]),
    'ERR_OPTION_VALUE: --shard got "1/8": 4 seeds cannot fill 8 shards; allowed: at most 4 shards',
  );
  assert.equal(
    await refusal(['check', '--shard', '1/2', ...cmd]),
    'ERR_USAGE: --shard needs seeds to share out: give --seeds',
  );
  assert.equal(
    await refusal(['check', '--perturb', '--seeds', '1..4', ...cmd]),
    'ERR_USAGE: --perturb tries one seed: give it with --seed N, not --seeds or --shard',
  );
});
