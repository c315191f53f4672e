/**
 * `node --import detdrift/register app.js`: the hook as an ES module, for `--import`. It loads the
 * CommonJS preload (register.cts), which starts recording before it returns. Prefer `--require`
 * where the program is CommonJS: an `--import` switches Node's entry point to the ESM loader.
 */
import './register.cjs';
