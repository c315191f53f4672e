/**
 * The scanner's specs are data (test/specs/scan/*.json, like istanbul-lib-instrument's YAML
 * specs): each case is source code and the sites it must give, as `api line:column`, or
 * `api line:column in fn` where the enclosing function matters. This file runs them, then checks
 * the table itself against the canonical API names.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { scanSource, SITE_TABLE, type ScanError, type ScanSite } from '../../diffing/scan/index.js';
import { API_TABLE } from '../../tracer/apis.js';
import { REPO } from '../helpers.js';

interface SpecCase {
  readonly name: string;
  /** the file name the code is scanned as (its extension picks script or module); default spec.js */
  readonly file?: string;
  /** lines, joined with `\n` */
  readonly code: readonly string[];
  readonly sites: readonly string[];
  /** `CODE line:column` of each error; default none */
  readonly errors?: readonly string[];
}

interface SpecFile {
  readonly description: string;
  readonly cases: readonly SpecCase[];
}

const SPECS = join(REPO, 'test', 'specs', 'scan');

function formatSite(site: ScanSite, withFn: boolean): string {
  const at = `${site.api} ${site.line}:${site.column}`;
  return withFn && site.fn !== null ? `${at} in ${site.fn}` : at;
}

function formatError(error: ScanError): string {
  return `${error.code} ${error.line}:${error.column}`;
}

for (const name of readdirSync(SPECS)
  .filter((file) => file.endsWith('.json'))
  .sort()) {
  const spec = JSON.parse(readFileSync(join(SPECS, name), 'utf8')) as SpecFile;
  describe(`${name}: ${spec.description}`, () => {
    for (const example of spec.cases) {
      test(example.name, () => {
        const file = example.file ?? 'spec.js';
        const result = scanSource(example.code.join('\n'), file);
        // An expectation with `in fn` checks the function; one without leaves it out.
        const withFn = example.sites.some((site) => site.includes(' in '));
        assert.deepEqual(
          result.sites.map((site) => formatSite(site, withFn)),
          example.sites,
        );
        assert.deepEqual(result.error === null ? [] : [formatError(result.error)], example.errors ?? []);
        for (const site of result.sites) assert.equal(site.file, file);
      });
    }
  });
}

test('every API the table names is a canonical API of the trace', () => {
  const canonical = new Set(API_TABLE.map((spec) => spec.api));
  for (const rule of SITE_TABLE) assert.ok(canonical.has(rule.api), `${rule.ref} → ${rule.api}`);
});

test('every clock and entropy API of the trace has a row in the table', () => {
  const families = new Set(['clock', 'random', 'crypto', 'timers', 'fs', 'process']);
  const wanted = new Set(API_TABLE.filter((spec) => families.has(spec.family)).map((spec) => spec.api));
  const covered = new Set(SITE_TABLE.map((rule) => rule.api));
  assert.deepEqual(
    [...wanted].filter((api) => !covered.has(api)),
    [],
  );
});

test('the same source always gives the same sites, in file, line, column order', () => {
  const code = 'const a = [Date.now(), Math.random()];\nsetTimeout(() => Math.random());\nnew Date();';
  const first = scanSource(code, 'same.js');
  assert.deepEqual(scanSource(code, 'same.js'), first);
  assert.deepEqual(
    first.sites.map((site) => `${site.line}:${site.column}`),
    ['1:17', '1:29', '2:1', '2:23', '3:1'],
  );
});

test('a site shows its line, clipped around the site on a long minified line', () => {
  const short = scanSource('  const id = crypto.randomUUID();  \n', 'short.js');
  assert.equal(short.sites[0]!.snippet, 'const id = crypto.randomUUID();');
  const long = scanSource(`var x=${'1+'.repeat(500)}1,y=Math.random();${'2+'.repeat(500)}2;`, 'long.js');
  const snippet = long.sites[0]!.snippet;
  assert.ok(snippet.length <= 122, `clipped: ${snippet.length}`);
  assert.match(snippet, /^….*y=Math\.random\(\).*…$/);
});

test('a call a run made is a site of the API the run saw, where the scan cannot resolve it; what the scan resolves keeps its own API', () => {
  const code =
    'function salt(root) {\n  return root.crypto.getRandomValues(new Uint32Array(1))[0] + Math.random();\n}\nfunction other(rng) {\n  return rng.next();\n}\n';
  assert.deepEqual(
    scanSource(code, 'salt.js').sites.map((site) => `${site.api} ${site.line}:${site.column}`),
    ['Math.random 2:68'],
  );
  const ran = new Map([
    ['2:22', 'crypto.getRandomValues'],
    ['2:68', 'Date.now'],
    ['9:9', 'Math.random'],
  ]);
  const sites = scanSource(code, 'salt.js', ran).sites;
  assert.deepEqual(
    sites.map((site) => `${site.api} ${site.line}:${site.column} in ${site.fn}`),
    ['crypto.getRandomValues 2:22 in salt', 'Math.random 2:68 in salt'],
  );
  assert.equal(sites[0]!.context, 'return⟨root.crypto.getRandomValues(newUint32Array(1))⟩[0]+Math.random();');
  // A file naming none of the APIs is still read for the calls a run made in it.
  assert.deepEqual(
    scanSource(code.slice(code.indexOf('function other')), 'other.js', new Map([['2:14', 'Math.random']])).sites.map(
      (site) => site.api,
    ),
    ['Math.random'],
  );
});
