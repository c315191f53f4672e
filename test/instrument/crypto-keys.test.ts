import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Tag } from '../../tracer/format.js';
import { murmurReference } from '../murmur-reference.js';
import { project, runHookedOk, siteOf } from '../helpers.js';

/**
 * Makes a key in each way (lines 4 to 9) and prints what each key's digest is taken of, as hex
 * (a secret key's bytes, a public key's DER or PEM); a non-extractable Web Crypto secret prints null.
 */
const APP = [
  "const crypto = require('node:crypto');",
  'const der = (key) => key.export({ type: "spki", format: "der" }).toString("hex");',
  'const out = []; const hex = (text) => Buffer.from(text).toString("hex");',
  'out.push(crypto.generateKeySync("hmac", { length: 128 }).export().toString("hex"));',
  'out.push(der(crypto.generateKeyPairSync("ed25519").publicKey));',
  'out.push(hex(crypto.generateKeyPairSync("ed25519", { publicKeyEncoding: { type: "spki", format: "pem" } }).publicKey));',
  'crypto.generateKey("aes", { length: 128 }, (error, key) => { out.push(key.export().toString("hex"));',
  '  crypto.generateKeyPair("x25519", (error, publicKey) => { out.push(der(publicKey));',
  '    crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]).then(async (pair) => { out.push(der(crypto.KeyObject.from(pair.publicKey)));',
  '      await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign"]); out.push(null);',
  '      console.log(JSON.stringify(out)); }); }); });',
].join('\n');

test('key generation in every form is recorded at its site with a digest of the key, never the key', () => {
  const dir = project({ 'app.cjs': APP });
  for (const mode of ['observe', 'control']) {
    const run = runHookedOk(['app.cjs'], { cwd: dir, env: { DETDRIFT_MODE: mode, DETDRIFT_SEED: '2' } });
    assert.equal(run.stderr, '', 'no warning: a non-extractable key is not read');
    const trace = run.traces.get('0')!;
    const events = trace.events.filter((event) => event.api.startsWith('crypto.generateKey'));
    const material = JSON.parse(run.stdout) as (string | null)[];
    assert.deepEqual(
      events.map((event) => [event.api, event.form, event.family, siteOf(trace, event)?.line]),
      [
        ['crypto.generateKey', 'sync', 'crypto', 4],
        ['crypto.generateKeyPair', 'sync', 'crypto', 5],
        ['crypto.generateKeyPair', 'sync', 'crypto', 6],
        ['crypto.generateKey', 'callback', 'crypto', 7],
        ['crypto.generateKeyPair', 'callback', 'crypto', 8],
        ['crypto.generateKey', 'webcrypto', 'crypto', 9],
        ['crypto.generateKey', 'webcrypto', 'crypto', 10],
      ],
      mode,
    );
    assert.deepEqual(
      events.map((event) => [event.tag & 0x0f, event.value]),
      material.map((hex) => (hex === null ? [Tag.none, null] : [Tag.digest, murmurReference(Buffer.from(hex, 'hex'))])),
      `${mode}: the digest of what the program got, and never uncontrolled keys marked as controlled`,
    );
    assert.ok(
      events.every((event) => event.control === 0),
      'no seed reaches a key',
    );
  }
});
