/**
 * `detdrift check` on programs whose output follows a source seeded tests use besides the clocks
 * and Math.random: a temporary directory's name, a generated key.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { appWith, causeOf, detdrift, lineOf, lines, reportOf } from '../cli-fixtures.js';

const check = (dir: string) => detdrift(['check', '--seed', '7', '--json', '--', process.execPath, 'app.js'], dir);

/** The cause a check of `app` should name: a call of `api` in the project, on the line that holds `needle`. */
function projectCall(app: string, api: string, needle: string, confidence: string) {
  const site = `app.js:${lineOf(app, needle)}`;
  return {
    verdict: 'diverge',
    reason: 'output',
    kind: 'call',
    api,
    package: null,
    site,
    firstPartySite: site,
    confidence,
  };
}

test('a program that prints the name of its temporary directory: check names fs.mkdtemp, and replay confirms it', () => {
  const app = lines(
    "'use strict';",
    "const fs = require('fs');",
    "const os = require('os');",
    "const path = require('path');",
    'const jitter = Math.random(); // drawn, never shown',
    "const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fixture-'));",
    "console.log('workspace', path.basename(dir), jitter >= 0);",
    'fs.rmdirSync(dir);',
  );
  const report = reportOf(check(appWith({ 'app.js': app })), 1);
  assert.deepEqual(causeOf(report), projectCall(app, 'fs.mkdtemp', 'mkdtempSync', 'replay-confirmed'));
  assert.deepEqual({ ...report.confirmation, runs: 0 }, { status: 'confirmed', pinned: 2, total: 2, runs: 0 });
});

test('a program that prints a fingerprint of a key it generates: check names the key generation replay cannot pin', () => {
  const app = lines(
    "'use strict';",
    "const crypto = require('crypto');",
    "const { publicKey } = crypto.generateKeyPairSync('ed25519');",
    "const der = publicKey.export({ type: 'spki', format: 'der' });",
    "console.log('fingerprint', crypto.createHash('sha256').update(der).digest('hex').slice(0, 16));",
  );
  const report = reportOf(check(appWith({ 'app.js': app })), 1);
  assert.deepEqual(causeOf(report), projectCall(app, 'crypto.generateKeyPair', 'generateKeyPairSync', 'heuristic'));
  assert.equal(report.confirmation?.status, 'outside');
  assert.match(report.cause?.rule ?? '', /crypto\.generateKeyPair, which replay cannot pin/);
});
