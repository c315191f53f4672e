/**
 * The real built-ins, saved once when the hook loads and before any family patches anything.
 * The recorder, the writer and every internal timing use only these, so the tool's own clock,
 * randomness and file access never reach a trace, and a program that patches a global later
 * cannot redirect the tool.
 */
import fs from 'node:fs';
import os from 'node:os';
import asyncHooks from 'node:async_hooks';

export const real = Object.freeze({
  apply: Reflect.apply,
  construct: Reflect.construct,
  defineProperty: Reflect.defineProperty,
  getOwnPropertyDescriptor: Reflect.getOwnPropertyDescriptor,
  captureStackTrace: Error.captureStackTrace,
  Date,
  dateNow: Date.now,
  dateGetTime: Date.prototype.getTime,
  mathRandom: Math.random,
  hrtime: process.hrtime,
  hrtimeBigint: process.hrtime.bigint,
  pid: process.pid,
  setTimeout: globalThis.setTimeout,
  setImmediate: globalThis.setImmediate,
  openSync: fs.openSync,
  writeSync: fs.writeSync,
  closeSync: fs.closeSync,
  readFileSync: fs.readFileSync,
  mkdirSync: fs.mkdirSync,
  existsSync: fs.existsSync,
  hostname: os.hostname,
  executionAsyncId: asyncHooks.executionAsyncId,
  executionAsyncResource: asyncHooks.executionAsyncResource,
  stderrFd: 2,
});

/** Reads and parses a JSON file with the real fs; null when it is missing or not JSON. */
export function readJsonFile(file: string): unknown {
  try {
    return JSON.parse(real.readFileSync(file, 'utf8'));
  } catch {
    return null; // a missing or broken package.json only costs the frame its version
  }
}
