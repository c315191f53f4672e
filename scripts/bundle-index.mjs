// The program-facing API (index.ts) as CommonJS too, dist/index.cjs, for the programs whose
// module loader cannot require an ES module: Jest's, which evaluates each test file's requires in
// its own module registry. It is self-contained (the channel's name inlined) and holds no state
// of its own: `checkpoint()` reaches the hook on a process-wide diagnostics channel, so a program
// that loads both copies still reaches one hook. Run by `npm run build` after tsc.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

await build({
  absWorkingDir: fileURLToPath(new URL('..', import.meta.url)),
  entryPoints: ['index.ts'],
  outfile: 'dist/index.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  logLevel: 'warning',
});
