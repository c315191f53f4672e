import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bump, direct, json, repository } from '../bump-fixtures.js';
import { lines } from '../cli-fixtures.js';

/**
 * Real upgrades that rebuild a bundle: content-hashed chunk names change, and so do the minified
 * names of its functions. The same call in the rebuilt chunk is the same call.
 */
const chunk = (local: string, roll: string) =>
  `"use strict";var ${local}=function(){return Math.floor(Math.random()*6)+1};exports.roll=function(){return ${roll}};\n`;
const bundled = (name: string, text: string) => ({
  'index.js': `module.exports = require('./dist/${name}');\n`,
  [`dist/${name}`]: text,
});
const APP = lines("const { roll } = require('dice');", "console.log('rolled', roll(), roll());");

test('a rebuilt bundle whose chunk is renamed, with the same draw inside, agrees with the old one', () => {
  const dir = repository(
    'npm-v3',
    APP,
    { tree: direct('dice', '1.0.0'), packages: { 'dice@1.0.0': bundled('chunk-3FQK2W.js', chunk('n', 'n()')) } },
    { tree: direct('dice', '1.0.1'), packages: { 'dice@1.0.1': bundled('chunk-J7XP4M.js', chunk('t', 't()')) } },
  );
  const report = json(bump(dir, '--mode', 'control'), 0);
  assert.equal(report.verdict, 'agree');
  assert.equal(report.bump.verdict, 'unchanged');
  assert.deepEqual(report.bump.addedSites, [], 'the rebuilt chunk adds no call site');
});

test('a rebuilt bundle that changes its algorithm but makes the same draws: not explained by an intercepted source, and the package is named', () => {
  const dir = repository(
    'npm-v3',
    APP,
    { tree: direct('dice', '2.0.0'), packages: { 'dice@2.0.0': bundled('chunk-3FQK2W.js', chunk('n', 'n()')) } },
    { tree: direct('dice', '2.1.0'), packages: { 'dice@2.1.0': bundled('chunk-J7XP4M.js', chunk('t', '7-t()')) } },
  );
  const report = json(bump(dir, '--mode', 'control'), 1);
  assert.equal(report.bump.verdict, 'changed');
  assert.deepEqual([report.cause.kind, report.cause.bump?.name, report.cause.bump?.to], ['outside', 'dice', '2.1.0']);
  assert.deepEqual([report.firstDivergence.reason, report.firstDivergence.b.value.head], ['output', 'rolled 5 5\n']);
  assert.deepEqual(report.bump.addedSites, [], 'the same draws: nothing added');
});
