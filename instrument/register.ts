/**
 * `node --import detdrift/register app.js`: the hook as an ES module, for `--import`. It loads the
 * CommonJS preload (register.cts), which starts recording before it returns. Prefer `--require`
 * where the program is CommonJS: an `--import` switches Node's entry point to the ESM loader.
 *
 * Required rather than imported: an `import` of a CommonJS file makes Node 22 parse it for its
 * exports first (cjs-module-lexer, not yet warm), which cost more than the rest of the hook's start.
 */
import { createRequire } from 'node:module';

// Marked while register.cjs runs, which then knows it was imported (by --import, or by a program's
// own ES module after it imported builtins) and is no first preload: the families listen to module
// resolutions, not loads (register.cts firstPreload). Nothing of the program's runs meanwhile.
const IMPORTED = Symbol.for('detdrift.register.imported');
(globalThis as Record<symbol, unknown>)[IMPORTED] = true;
try {
  createRequire(import.meta.url)('./register.cjs');
} finally {
  delete (globalThis as Record<symbol, unknown>)[IMPORTED];
}
