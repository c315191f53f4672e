#!/usr/bin/env node
/**
 * The `detdrift` bin. Where Node has one (22, 24), it first turns on Node's compile cache for the
 * CLI's own modules, in the folder of this user's that holds the hook's code cache: a command's
 * start then reads V8's bytecode for its chunks instead of compiling them again. The cache is this
 * process's alone: the commands it runs do not inherit it. NODE_COMPILE_CACHE, when set, decides
 * instead (Node enabled it already), and NODE_DISABLE_COMPILE_CACHE=1 or DETDRIFT_CODE_CACHE=off
 * turns it off. Then the CLI itself (main.ts).
 */
import module from 'node:module';
import { join } from 'node:path';
import { codeCacheDir } from '../instrument/code-cache-dir.cjs';

const { enableCompileCache } = module as { enableCompileCache?: (directory: string) => unknown };
if (enableCompileCache && process.env.NODE_COMPILE_CACHE === undefined) {
  const dir = codeCacheDir();
  if (dir !== null) enableCompileCache(join(dir, 'cli'));
}
await import('./main.js');
