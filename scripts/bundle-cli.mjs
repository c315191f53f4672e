// Bundles the CLI (cli/entry.ts, which imports cli/main.ts, and everything they import, dependencies included) into
// dist/cli/bundle/, which the package's bin runs: each module Node loads costs a resolve, a read
// and a compile, and `record` loaded about 230 files (about 200 of them its dependencies') before
// the traced command started. ES modules with code splitting, so the CLI keeps its lazy loading: each
// dynamic import (a command's options.ts, its run.ts, the help) is a chunk of its own, and code
// that several of them share goes to shared chunks; `--version` loads the entry's chunk and the
// few it imports (the Node version check, the errors), no command.
// The dist/cli files stay tsc's, for the tests that import them one by one. Run by `npm run
// build` after tsc. The same sources give the same bundle byte for byte.
//
// What the bundle reads relative to itself (cli/shared/package.ts: package.json, the hook's
// register.cjs, the examples) it reads from `import.meta.url`, which is the chunk's: the chunks
// sit at the depth tsc gives cli/shared/, so the same relative paths hold. The lockfile parsers
// that diffing/lockfile loads on first use through `createRequire` stay in node_modules.
// pino's transports, whose workers it finds from `__dirname`, would not run from the bundle: the
// logger (cli/shared/logger.ts) writes through destinations and uses none.
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = 'dist/cli/bundle';

// A build that fails leaves no bundle from before it.
rmSync(join(root, outdir), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { main: 'cli/entry.ts' },
  outdir,
  bundle: true,
  splitting: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  chunkNames: '[name]-[hash]',
  // The CommonJS dependencies (pino, semver, @babel/*) call `require` for builtins and their own
  // files: an ES module has none, so each chunk makes one.
  banner: {
    js: "import { createRequire as __detdriftCreateRequire } from 'node:module'; const require = __detdriftCreateRequire(import.meta.url);",
  },
  // read only under --enable-source-maps; it names the .ts files rather than copying them
  sourcemap: 'linked',
  sourcesContent: false,
  logLevel: 'warning',
});
