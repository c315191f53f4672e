import { lines } from './cli-fixtures.js';

/**
 * A package like ulid across its 2 → 3 bump: 2 ships one UMD bundle that draws from
 * `require('crypto').randomBytes`; 3 moves its code to `dist/node/` as a CommonJS and an ESM build
 * of the same source, and draws from `crypto.getRandomValues` through an alias of the global it
 * detects at run time (`globalCrypto`), keeping randomBytes as a fallback. Its insecure fallback
 * moved to a package of its own, new in 3. Files by path, as `repository` (bump-fixtures.ts) takes them.
 */
const ENCODE = [
  "const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';",
  'function encodeTime(now, len) {',
  "  let str = '';",
  '  for (; len > 0; len--, now = Math.floor(now / 32)) str = ENCODING.charAt(now % 32) + str;',
  '  return str;',
  '}',
  'function encodeRandom(len, prng) {',
  "  let str = '';",
  '  for (; len > 0; len--) str = ENCODING.charAt(Math.floor(prng() * 32)) + str;',
  '  return str;',
  '}',
];

const ULID = [
  'function ulid(seedTime, prng) {',
  '  if (isNaN(seedTime)) seedTime = Date.now();',
  '  return encodeTime(seedTime, 10) + encodeRandom(16, prng || detectPrng());',
  '}',
];

export const ULID_2 = {
  'index.js': "module.exports = require('./dist/index.umd.js');\n",
  'dist/index.umd.js': lines(
    '(function (global, factory) {',
    "  typeof exports === 'object' ? factory(exports) : factory((global.ULID = {}));",
    '})(this, function (exports) {',
    "  'use strict';",
    ...[
      ...ENCODE,
      'function detectPrng(allowInsecure) {',
      '  try {',
      "    const nodeCrypto = require('crypto');",
      '    return () => nodeCrypto.randomBytes(1).readUInt8() / 256;',
      '  } catch (e) {}',
      '  if (allowInsecure) return () => Math.random();',
      "  throw new Error('secure crypto unusable');",
      '}',
      ...ULID,
      'exports.ulid = ulid;',
    ].map((line) => `  ${line}`),
    '});',
  ),
};

const DETECT_3 = [
  'function detectRoot() {',
  "  if (typeof window !== 'undefined') return window;",
  "  if (typeof global !== 'undefined') return global;",
  "  if (typeof globalThis !== 'undefined') return globalThis;",
  '  return null;',
  '}',
  'function detectPrng(allowInsecure) {',
  '  const rootLookup = detectRoot();',
  "  const globalCrypto = (rootLookup && (rootLookup.crypto || rootLookup.msCrypto)) || (typeof crypto !== 'undefined' ? crypto : null);",
  "  if (typeof globalCrypto?.getRandomValues === 'function') {",
  '    return () => {',
  '      const buffer = new Uint8Array(1);',
  '      globalCrypto.getRandomValues(buffer);',
  '      return buffer[0] / 256;',
  '    };',
  '  }',
  '  if (crypto?.randomBytes) return () => crypto.randomBytes(1).readUInt8() / 256;',
  '  if (allowInsecure) return insecure;',
  "  throw new Error('secure crypto unusable');",
  '}',
];

export const ULID_3 = {
  'index.js': "module.exports = require('./dist/node/index.cjs');\n",
  'dist/node/index.cjs': lines(
    "'use strict';",
    "var crypto = require('node:crypto');",
    "var { insecure } = require('insecure-random');",
    ...ENCODE,
    ...DETECT_3,
    ...ULID,
    'exports.ulid = ulid;',
  ),
  'dist/node/index.js': lines(
    "import crypto from 'node:crypto';",
    "import { insecure } from 'insecure-random';",
    ...ENCODE,
    ...DETECT_3,
    ...ULID,
    'export { ulid };',
  ),
};

/** The package ulid 3 depends on, new in head. */
export const INSECURE_RANDOM = {
  'index.js': lines('exports.insecure = function insecure() {', '  return Math.random();', '};'),
};
