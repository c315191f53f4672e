// Bundles the hook entry (instrument/register.ts and everything it imports) into one ES module,
// dist/instrument/register.js, over tsc's file of that name: each module Node loads at start-up
// costs a resolve, a read and a compile, and the hook loads ~30 of ours before the program runs.
// The other dist/instrument files stay tsc's, for the unit tests that import them one by one.
// Run by `npm run build` after tsc. The same sources give the same bundle byte for byte.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const result = await build({
  absWorkingDir: root,
  entryPoints: ['instrument/register.ts'],
  outfile: 'dist/instrument/register.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // register.js stays at the depth tsc gave it: runtime.ts finds package.json from import.meta.url
  sourcemap: 'linked',
  sourcesContent: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});

// The hook runs inside the traced program and must load nothing but Node's builtins.
const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports);
const foreign = imports.filter((entry) => !entry.path.startsWith('node:'));
if (foreign.length > 0) {
  console.error(`bundle-hook: the hook would load ${foreign.map((entry) => entry.path).join(', ')}; only node: builtins are allowed`);
  process.exit(1);
}
