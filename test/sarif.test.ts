import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { FormatsPlugin } from 'ajv-formats';
import { renderSarif } from '../report/sarif.js';
import type { Report } from '../report/types.js';
import { REPO } from './helpers.js';
import { AGREE_REPORT, BUMP_REPORT, EVIL, EVIL_REPORT } from './report-fixture.js';

// The SARIF 2.1.0 schema as the SARIF SDK ships it (test/data/README.md says from where).
const schema = JSON.parse(readFileSync(join(REPO, 'test', 'data', 'sarif-schema-2.1.0.json'), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true });
(createRequire(import.meta.url)('ajv-formats') as FormatsPlugin)(ajv);
const validate = ajv.compile(schema);

interface Sarif {
  runs: Array<{ tool: { driver: { name: string; rules: Array<{ id: string }> } }; results: Array<Record<string, any>> }>;
}

function sarif(report: Report, dependencyLine: (name: string) => number | null = () => null): { text: string; log: Sarif } {
  const text = renderSarif(report, { toolVersion: '1.2.3', pathPrefix: 'app', dependencyLine });
  const log = JSON.parse(text) as Sarif;
  assert.ok(validate(log), `valid SARIF 2.1.0: ${ajv.errorsText(validate.errors)}`);
  return { text, log };
}

test('the schema catches what it should: a log without a driver name is refused', () => {
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: {} }, results: [] }] }), false);
  assert.equal(validate({ version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ message: {}, locations: 'no' }] }] }), false);
});

test('one rule per API family, and the cause located at its call site with the project frame and package.json related', () => {
  const { log } = sarif(BUMP_REPORT, (name) => (name === 'tick-queue' ? 12 : null));
  const run = log.runs[0]!;
  assert.equal(run.tool.driver.name, 'detdrift');
  assert.deepEqual(run.tool.driver.rules.map((rule) => rule.id), ['clock', 'random', 'crypto', 'timers', 'fs', 'process', 'divergence'].map((key) => `detdrift/${key}`));
  assert.equal(run.results.length, 1);
  const [result] = run.results;
  assert.equal(result!.ruleId, 'detdrift/random');
  assert.equal(run.tool.driver.rules[result!.ruleIndex]!.id, 'detdrift/random');
  assert.equal(result!.level, 'error');
  assert.deepEqual(result!.locations[0].physicalLocation, { artifactLocation: { uri: 'app/node_modules/tick-queue/index.js', uriBaseId: '%SRCROOT%' }, region: { startLine: 9, startColumn: 43 } });
  assert.deepEqual(result!.relatedLocations.map((related: any) => [related.id, related.physicalLocation.artifactLocation.uri, related.physicalLocation.region.startLine]), [
    [1, 'app/sim.js', 24],
    [2, 'app/package.json', 12],
  ]);
  assert.equal(
    result!.message.text,
    "Two seeded runs diverge at an uncontrolled Math.random call in tick-queue@1.1.0: a call the new dependency tree makes and the old one does not (heuristic). It is reached from [the project's code](1). Dependency: tick-queue 1.0.0 → 1.1.0 (minor). Replay run A locally: npx detdrift replay base-trace -- node sim.js",
  );
  const flow = result!.codeFlows[0].threadFlows[0].locations.map((step: any) => [step.location.physicalLocation.artifactLocation.uri, step.location.physicalLocation.region.startLine, step.executionOrder]);
  assert.deepEqual(flow, [['app/sim.js', 40, 1], ['app/sim.js', 24, 2], ['app/node_modules/tick-queue/index.js', 9, 3]], 'the stack, outermost frame first');
  assert.match(result!.partialFingerprints['detdriftCause/v1'], /^[0-9a-f]{32}$/);
});

test('a transitive bump relates the package.json line of the direct dependency it comes through', () => {
  const bump = { name: 'left-pad', from: '1.2.0', to: '1.3.0', kind: 'minor', path: ['tick-queue', 'left-pad'] };
  const { log } = sarif({ ...BUMP_REPORT, cause: { ...BUMP_REPORT.cause!, bump } }, (name) => (name === 'tick-queue' ? 12 : null));
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
  const uri: string = result.locations[0].physicalLocation.artifactLocation.uri;
  assert.ok(!/[\s,]/.test(uri), `one URI reference, percent-encoded: ${uri}`);
  assert.equal(decodeURIComponent(uri.split('/').at(-1)!), 'evil\n::set-output name=x::y\r\n::error::forged.js');
  // Message text reads [text](id) as a link: literal brackets are escaped, so the only link is ours.
  assert.deepEqual(result.message.text.match(/(?<!\\)\[[^\]]*\]\(\d+\)/g), ["[the project's code](1)"]);
  assert.ok(result.message.text.includes(EVIL.value.replace(/[\\[\]]/g, '\\$&')), 'the bump version, brackets escaped');
  assert.equal(result.ruleId, 'detdrift/divergence', 'an API name the table does not know is no family');
});
