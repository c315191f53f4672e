import assert from 'node:assert/strict';
import { test } from 'node:test';
import { manifestLines } from '../../diffing/findings/manifest.js';
import { project } from '../helpers.js';

test('manifestLines: the line of each direct dependency in package.json, at the first section that lists it', () => {
  const root = project({
    'package.json': [
      '{',
      '  "name": "app",',
      '  "devDependencies": { "tick-queue": "^1.0.0" },',
      '  "dependencies": {',
      '    "left-pad": "^1.2.0",',
      '    "@scope/tool.js": "4.0.0",',
      '    "tick-queue": "^1.1.0"',
      '  },',
      '  "peerDependencies": {',
      '    "left-pad": "*"',
      '  }',
      '}',
      '',
    ].join('\n'),
  });
  // A name in two sections is at the first of dependencies, devDependencies, optional and peer ones.
  assert.deepEqual(Object.fromEntries(manifestLines(root)), { 'left-pad': 5, '@scope/tool.js': 6, 'tick-queue': 7 });
});

test('manifestLines: no package.json, or one that does not parse, has no line to point at', () => {
  assert.equal(manifestLines(project({ 'app.js': '' })).size, 0);
  assert.equal(manifestLines(project({ 'package.json': '{ "dependencies": { "left-pad": ' })).size, 0);
});
