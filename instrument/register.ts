/**
 * `node --import detdrift/register app.js`: the hook as an ES module, for `--import`. It loads the
 * CommonJS preload (register.cts), which starts recording before it returns. Prefer `--require`
 * where the program is CommonJS: an `--import` switches Node's entry point to the ESM loader.
 *
 * Required rather than imported: an `import` of a CommonJS file makes Node 22 parse it for its
 * exports first (cjs-module-lexer, not yet warm), which cost more than the rest of the hook's start.
 */
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./register.cjs');
