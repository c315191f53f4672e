// Bundles the hook entry (instrument/register.ts and everything it imports) into one ES module,
// dist/instrument/register.js, over tsc's file of that name: each module Node loads at start-up
// costs a resolve, a read and a compile, and the hook's code is ~30 modules of ours.
// The other dist/instrument files stay tsc's, for the unit tests that import them one by one.
// Run by `npm run build` after tsc. The same sources give the same bundle byte for byte.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const result = await build({
  absWorkingDir: root,
  entryPoints: ['instrument/register.ts'],
  // at the depth tsc gave it: runtime.ts finds package.json from import.meta.url
  outfile: 'dist/instrument/register.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // read only under --enable-source-maps; it names the .ts files rather than copying them
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
});

// The hook runs inside the traced program: it holds only instrument/ and tracer/ code (DESIGN.md)
// and loads nothing but Node's builtins.
const inputs = Object.keys(result.metafile.inputs).filter((path) => !/^(instrument|tracer)\//.test(path));
const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((entry) => entry.path));
const foreign = [...inputs, ...imports.filter((path) => !path.startsWith('node:'))];
if (foreign.length > 0) {
  console.error(`bundle-hook: the hook would hold or load ${foreign.join(', ')}; only instrument/, tracer/ and node: builtins are allowed`);
  process.exit(1);
}
