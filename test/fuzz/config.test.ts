/**
 * Bad configs (issue #9, items 3 and 6): documents made from the config's own vocabulary with
 * values of every type, valid configs mutated byte by byte, random bytes, deep nesting and huge
 * strings. Loading never throws: every problem comes back with its file and a path, and a syntax
 * error with a line and column that agree with JSON.parse's own position where Node gives one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatProblem, parseConfig } from '../../cli/shared/config.js';
import { jsonErrorOffset } from '../../diffing/json-position.js';
import { caseCount, caseName, seeded, type Random } from './seeded.js';

const KEYS = ['seeds', 'command', 'ignore', 'controlled', 'sites', 'packages', 'seed', '__proto__', 'constructor', ''];
const STRINGS = [
  '42',
  '0x2a',
  'x',
  '',
  'node',
  'test/sim.js',
  'src/a.js:3',
  'lib/',
  '../up',
  '/abs',
  'pino',
  '@s/n',
  'Bad Name',
  '\u0000',
  'é😀',
];

function value(random: Random, depth: number): unknown {
  switch (random.int(depth > 0 ? 9 : 6)) {
    case 0:
      return random.int(1e6) - 10;
    case 1:
      return random.pick(STRINGS);
    case 2:
      return random.pick([true, false, null, 1.5, -0, 2 ** 60]);
    case 3:
      return random.pick(STRINGS).repeat(1 + random.int(3));
    case 4:
      return 'x'.repeat(random.int(3) === 0 ? 100_000 : 5);
    case 5:
      return [];
    case 6:
      return Array.from({ length: random.int(5) }, () => value(random, depth - 1));
    default: {
      const object: Record<string, unknown> = {};
      for (let i = random.int(4); i > 0; i--) object[random.pick(KEYS)] = value(random, depth - 1);
      return object;
    }
  }
}

/** A config document: made up, mutated from a valid one, or random bytes. */
function document(random: Random): string {
  const valid = JSON.stringify(
    {
      seeds: [1, '0x2a'],
      command: ['node', 'app.js'],
      ignore: { sites: ['a.js:1'], packages: ['pino'] },
      controlled: ['b.js'],
    },
    null,
    2,
  );
  switch (random.int(6)) {
    case 0:
      return Buffer.from(random.bytes(random.int(200))).toString('utf8');
    case 1: {
      let text = valid;
      for (let k = 1 + random.int(4); k > 0; k--) {
        const at = random.int(text.length + 1);
        const op = random.int(3);
        const char = random.pick([...'{}[]",:0 \n\\x-e.']);
        text =
          op === 0
            ? text.slice(0, at) + char + text.slice(at + 1)
            : op === 1
              ? text.slice(0, at) + text.slice(at + 1 + random.int(5))
              : text.slice(0, at) + char + text.slice(at);
      }
      return text;
    }
    case 2:
      return valid.slice(0, random.int(valid.length));
    case 3:
      return `{"seeds": ${'['.repeat(20_000 + random.int(100))}${']'.repeat(20_000)}}`;
    default: {
      const config: Record<string, unknown> = {};
      for (let i = random.int(6); i > 0; i--) config[random.pick(KEYS)] = value(random, 3);
      return JSON.stringify(config);
    }
  }
}

const PATH = /^(?:detdrift)?(?:\.?[\w$]+|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*$/;
const CASES = caseCount(500);

test(`${CASES} made-up, mutated and random configs: never a throw, every problem with its file and path`, () => {
  const random = seeded(20);
  for (let i = 0; i < CASES; i++) {
    const text = document(random);
    const asManifest = random() < 0.2;
    const file = asManifest ? 'package.json' : 'detdrift.config.json';
    const name = caseName('config', i);
    const wrapped = asManifest ? `{"name":"app","detdrift":${text}}` : text;
    const loaded = parseConfig(wrapped, file, asManifest ? 'detdrift' : undefined);
    for (const problem of [...loaded.errors, ...loaded.warnings]) {
      assert.equal(problem.file, file, name);
      assert.match(problem.path, PATH, `${name}: ${formatProblem(problem)}`);
      assert.ok(problem.message.length > 0 && problem.message.length < 400, `${name}: ${formatProblem(problem)}`);
    }
    if (loaded.errors.length > 0)
      assert.equal(loaded.config.seeds, null, `${name}: a config with errors is the empty one`);
    let parsed = true;
    try {
      JSON.parse(wrapped);
    } catch {
      parsed = false;
    }
    if (!parsed && !asManifest) {
      assert.equal(loaded.errors.length, 1, name);
      assert.match(loaded.errors[0]!.message, /^not JSON: .* at line \d+, column \d+$/, name);
    }
  }
});

test(`the JSON error scanner agrees with JSON.parse on ${CASES} texts: valid text scans whole, and where Node names a position, it is that one`, () => {
  const random = seeded(21);
  let placed = 0;
  for (let i = 0; i < CASES; i++) {
    const text = document(random);
    const offset = jsonErrorOffset(text);
    try {
      JSON.parse(text);
      assert.equal(offset, text.length, `${caseName('scanner', i)}: valid JSON scans to its end`);
    } catch (error) {
      const position = /at position (\d+)/.exec((error as Error).message);
      if (position) {
        placed++;
        assert.equal(
          offset,
          Number(position[1]),
          `${caseName('scanner', i)}: ${(error as Error).message}\n${text.slice(0, 200)}`,
        );
      }
    }
  }
  assert.ok(placed > 0 || !/position/.test(tryParse('{"a":}')), 'the cross-check ran');
});

function tryParse(text: string): string {
  try {
    JSON.parse(text);
    return '';
  } catch (error) {
    return (error as Error).message;
  }
}
