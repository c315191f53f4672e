#!/usr/bin/env node
// Runs every compiled test file with node's test runner, on the node that runs this script.
// Usage: node test/run.js [name-filter ...]
import { readdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const dir = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..', 'dist', 'test');
const filters = process.argv.slice(2);
const files = readdirSync(dir, { recursive: true })
  .filter((file) => String(file).endsWith('.test.js'))
  .filter((file) => filters.length === 0 || filters.some((filter) => String(file).includes(filter)))
  .sort()
  .map((file) => join(dir, String(file)));
if (files.length === 0) {
  console.error(`no test files matched in ${dir}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
