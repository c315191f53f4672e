import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import { renderSarif } from '../../report/sarif.js';
import type { Report } from '../../report/types.js';
import { bump, direct, repository } from '../bump-fixtures.js';
import { lineOf } from '../cli-fixtures.js';
import { REPO } from '../helpers.js';
import { AGREE_REPORT, BUMP_REPORT, EVIL, EVIL_REPORT } from '../report-fixture.js';

// The SARIF 2.1.0 schema as the SARIF SDK ships it (test/data/README.md says from where).
const schema = JSON.parse(readFileSync(join(REPO, 'test', 'data', 'sarif-schema-2.1.0.json'), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true });
(createRequire(import.meta.url)('ajv-formats') as FormatsPlugin)(ajv);
const validate = ajv.compile(schema);

interface Sarif {
  runs: Array<{
    tool: { driver: { name: string; rules: Array<{ id: string }> } };
    results: Array<Record<string, any>>;
  }>;
}

const uriAndLine = (location: any) => [
  location.physicalLocation.artifactLocation.uri,
  location.physicalLocation.region.startLine,
];

const relatedOf = (result: Record<string, any>): Array<[number, string, number, string]> =>
  result.relatedLocations.map((related: any) => [related.id, ...uriAndLine(related), related.message.text]);

function sarif(
  report: Report,
  dependencyLine: (name: string) => number | null = () => null,
): { text: string; log: Sarif } {
  const text = renderSarif(report, { toolVersion: '1.2.3', pathPrefix: 'app', dependencyLine });
  const log = JSON.parse(text) as Sarif;
  assert.ok(validate(log), `valid SARIF 2.1.0: ${ajv.errorsText(validate.errors)}`);
  return { text, log };
}

test('the schema catches what it should: a log without a driver name is refused', () => {
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: {} }, results: [] }] }), false);
  assert.equal(
    validate({
      version: '2.1.0',
      runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: {}, locations: 'no' }] }],
    }),
    false,
  );
});

test('one rule per API family, and the cause located at the first project frame, with the call site and package.json related', () => {
  const { log } = sarif(BUMP_REPORT, (name) => (name === 'tick-queue' ? 12 : null));
  const run = log.runs[0]!;
  assert.equal(run.tool.driver.name, 'detdrift');
  assert.deepEqual(
    run.tool.driver.rules.map((rule) => rule.id),
    ['clock', 'random', 'crypto', 'timers', 'fs', 'process', 'divergence'].map((key) => `detdrift/${key}`),
  );
  assert.equal(run.results.length, 1);
  const [result] = run.results;
  assert.equal(result!.ruleId, 'detdrift/random');
  assert.equal(run.tool.driver.rules[result!.ruleIndex]!.id, 'detdrift/random');
  assert.equal(result!.level, 'error');
  assert.deepEqual(result!.locations, [
    {
      physicalLocation: {
        artifactLocation: { uri: 'app/sim.js', uriBaseId: '%SRCROOT%' },
        region: { startLine: 24, startColumn: 46 },
      },
    },
  ]);
  assert.deepEqual(relatedOf(result!), [
    [
      1,
      'app/node_modules/tick-queue/index.js',
      9,
      'the uncontrolled Math.random call in tick-queue@1.1.0: tick-queue@1.1.0/index.js:9:43 push',
    ],
    [2, 'app/package.json', 12, 'the bumped dependency: tick-queue 1.0.0 → 1.1.0 (minor)'],
  ]);
  assert.equal(
    result!.message.text,
    'Two seeded runs diverge at [an uncontrolled call](1) to Math.random in tick-queue@1.1.0: a call the new dependency tree makes and the old one does not (likely: chosen by a rule, not confirmed by a replay). Dependency: tick-queue 1.0.0 → 1.1.0 (minor). Replay run A locally: npx detdrift replay base-trace -- node sim.js',
  );
  const flow = result!.codeFlows[0].threadFlows[0].locations.map((step: any) => [
    step.location.physicalLocation.artifactLocation.uri,
    step.location.physicalLocation.region.startLine,
    step.executionOrder,
  ]);
  assert.deepEqual(
    flow,
    [
      ['app/sim.js', 40, 1],
      ['app/sim.js', 24, 2],
      ['app/node_modules/tick-queue/index.js', 9, 3],
    ],
    'the stack, outermost frame first',
  );
  assert.match(result!.partialFingerprints['detdriftCause/v1'], /^[0-9a-f]{32}$/);
});

test("a call with no project frame on its stack is located at the bump's package.json line, else at the lockfile", () => {
  const push = BUMP_REPORT.cause!.site!;
  const orphan: Report = {
    ...BUMP_REPORT,
    firstDivergence: null,
    cause: { ...BUMP_REPORT.cause!, firstPartySite: null, stack: [push] },
  };
  const manifest = sarif(orphan, () => 12).log.runs[0]!.results[0]!;
  assert.deepEqual(uriAndLine(manifest.locations[0]), ['app/package.json', 12]);
  assert.deepEqual(
    relatedOf(manifest).map(([id, uri]) => [id, uri]),
    [[1, 'app/node_modules/tick-queue/index.js']],
    'the package.json line is not related to itself',
  );
  const lockfile = (run: NonNullable<Report['runs']['a']>) => ({ ...run, lockfile: 'package-lock.json:0123456789ab' });
  const locked: Report = { ...orphan, runs: { a: lockfile(orphan.runs.a!), b: lockfile(orphan.runs.b!) } };
  const result = sarif(locked).log.runs[0]!.results[0]!;
  assert.deepEqual(uriAndLine(result.locations[0]), ['app/package-lock.json', 1]);
  assert.deepEqual(
    relatedOf(result).map(([id, uri]) => [id, uri]),
    [[1, 'app/node_modules/tick-queue/index.js']],
  );
  assert.match(result.message.text, /^Two seeded runs diverge at \[an uncontrolled call\]\(1\) to Math\.random/);
});

test('a transitive bump relates the package.json line of the direct dependency it comes through', () => {
  const bump = { name: 'left-pad', from: '1.2.0', to: '1.3.0', kind: 'minor', path: ['tick-queue', 'left-pad'] };
  const { log } = sarif({ ...BUMP_REPORT, cause: { ...BUMP_REPORT.cause!, bump } }, (name) =>
    name === 'tick-queue' ? 12 : null,
  );
  const related = log.runs[0]!.results[0]!.relatedLocations.find((entry: any) => entry.id === 2);
  assert.equal(related.physicalLocation.region.startLine, 12);
  assert.match(related.message.text, /left-pad 1\.2\.0 → 1\.3\.0 \(minor, through tick-queue > left-pad\)/);
});

test('agreeing runs give a valid log with no result, which closes an earlier alert', () => {
  const { log } = sarif(AGREE_REPORT);
  assert.deepEqual(log.runs[0]!.results, []);
});

test('the same report gives the same SARIF, byte for byte', () => {
  assert.equal(sarif(BUMP_REPORT).text, sarif(BUMP_REPORT).text);
});

test('trace strings stay valid URIs and plain message text, and the file stays inert in a log', () => {
  const { text, log } = sarif(EVIL_REPORT, () => 3);
  assert.ok(!text.includes('##['), 'no legacy workflow command in the file');
  const result = log.runs[0]!.results[0]!;
  const [primary, site]: string[] = [result.locations[0], result.relatedLocations[0]].map(
    (at: any) => at.physicalLocation.artifactLocation.uri,
  );
  for (const uri of [primary!, site!]) assert.ok(!/[\s,]/.test(uri), `one URI reference, percent-encoded: ${uri}`);
  assert.equal(decodeURIComponent(site!.split('/').at(-1)!), 'evil\n::set-output name=x::y\r\n::error::forged.js');
  // Message text reads [text](id) as a link: literal brackets are escaped, so the only link is ours.
  assert.deepEqual(result.message.text.match(/(?<!\\)\[[^\]]*\]\(\d+\)/g), ['[an uncontrolled call](1)']);
  assert.ok(result.message.text.includes(EVIL.value.replace(/[\\[\]]/g, '\\$&')), 'the bump version, brackets escaped');
  assert.equal(result.ruleId, 'detdrift/divergence', 'an API name the table does not know is no family');
});

/** `detdrift bump --report sarif` on a fixture repository: its one result, the log checked against the schema, and dice's line in package.json. */
function bumpSarif(before: string, after: string): { result: Record<string, any>; line: number } {
  const app = "const { roll } = require('dice');\nroll((value) => console.log('rolled', value));\n";
  const dir = repository(
    'npm-v3',
    app,
    { tree: direct('dice', '1.0.0'), packages: { 'dice@1.0.0': before } },
    { tree: direct('dice', '1.0.1'), packages: { 'dice@1.0.1': after } },
  );
  assert.equal(bump(dir, '--report', 'sarif=out/bump.sarif').code, 1);
  const log = JSON.parse(readFileSync(join(dir, 'out', 'bump.sarif'), 'utf8')) as Sarif;
  assert.ok(validate(log), `valid SARIF 2.1.0: ${ajv.errorsText(validate.errors)}`);
  assert.equal(log.runs[0]!.results.length, 1);
  return { result: log.runs[0]!.results[0]!, line: lineOf(readFileSync(join(dir, 'package.json'), 'utf8'), '"dice"') };
}

test('bump --report sarif: the alert is on the project line that calls the bumped package, the call itself related', () => {
  const { result, line } = bumpSarif(
    'exports.roll = (done) => done(4);\n',
    'exports.roll = (done) => done(4 + Math.random());\n',
  );
  assert.deepEqual(uriAndLine(result.locations[0]), ['app.js', 2]);
  assert.deepEqual(
    relatedOf(result).map(([id, uri, line]) => [id, uri, line]),
    [
      [1, 'node_modules/dice/index.js', 1],
      [2, 'package.json', line],
    ],
  );
});

test('bump --report sarif: a draw the package makes on its own timer, with no project frame, is on the package.json line of the bump', () => {
  const later = (value: string) => `exports.roll = (done) => setTimeout(function later() { done(${value}); }, 0);\n`;
  const { result, line } = bumpSarif(later('4'), later('4 + Math.random()'));
  assert.equal(result.ruleId, 'detdrift/random');
  assert.deepEqual(uriAndLine(result.locations[0]), ['package.json', line]);
  assert.deepEqual(
    relatedOf(result).map(([id, uri, line]) => [id, uri, line]),
    [[1, 'node_modules/dice/index.js', 1]],
  );
});
