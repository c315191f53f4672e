// Bundles the hook's code (instrument/hook.ts and everything it imports) into one script,
// dist/instrument/bundle.js, which dist/instrument/register.cjs (register.cts, bundled below) compiles
// with V8's code cache: each module Node loads at start-up costs a resolve, a read and a compile,
// and the hook's code is ~30 modules of ours. The script is a function of the bundle's URL (its
// `import.meta.url`) that returns the hook's `start`; a script rather than a module because only
// scripts take a code cache without flags. The dist/instrument files stay tsc's, for the unit
// tests that import them one by one. Run by `npm run build` after tsc. The same sources give the
// same bundle byte for byte.
//
// The bundle imports no builtin as an ES module: it takes each from `process.getBuiltinModule`.
// An ESM import makes Node build the builtin's ESM facade, and every facade makes the hook's
// `syncBuiltinESMExports` after patching walk all its exports, firing lazy getters (`fs.promises`,
// the fs streams) that load a dozen more builtins. Without facades the program's own first
// `import { readdirSync } from 'node:fs'` builds one from the exports the hook already patched.
import { build } from 'esbuild';
import ts from 'typescript';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Script } from 'node:vm';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
/** The plugin's modules: one per builtin, and the snapshot they all re-export from. */
const NAMESPACE = 'detdrift-builtin';
const SNAPSHOT = 'snapshot';
/** The script's parameter: the bundle's URL, for `import.meta.url`. */
const URL_PARAMETER = '__detdriftBundleUrl';

/** @type {import('esbuild').BuildOptions} */
const options = {
  absWorkingDir: root,
  entryPoints: ['instrument/hook.ts'],
  // at the depth tsc gives runtime.ts: it finds package.json from import.meta.url
  outfile: 'dist/instrument/bundle.js',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // read only under --enable-source-maps; it names the .ts files rather than copying them
  sourcemap: 'linked',
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  define: { 'import.meta.url': URL_PARAMETER },
  write: false,
};

// A build that fails leaves no bundle from before it: the hook then loads tsc's fresh modules.
rmSync(join(root, options.outfile), { force: true });

// First pass, builtins left as imports: which names the bundle takes from which builtin.
const first = await build({ ...options, sourcemap: false });
const used = builtinImports(first.outputFiles[0].text);
const result = await build({ ...options, plugins: [builtinsFromProcess(used)] });

// The hook runs inside the traced program: it holds only instrument/ and tracer/ code (DESIGN.md)
// and loads nothing but Node's builtins, through process.getBuiltinModule.
const inputs = Object.keys(result.metafile.inputs).filter(
  (path) => !/^(instrument|tracer)\//.test(path) && !path.startsWith(`${NAMESPACE}:`),
);
const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((entry) => entry.path));
const foreign = [...inputs, ...imports];
if (foreign.length > 0) {
  console.error(
    `bundle-hook: the hook would hold or import ${foreign.join(', ')}; only instrument/ and tracer/ code is allowed, and builtins come from process.getBuiltinModule`,
  );
  process.exit(1);
}

const outputs = result.outputFiles.map((file) => [
  file.path,
  file.path.endsWith('.js') ? asScript(asAscii(file.text)) : file.contents,
]);
for (const [path, contents] of outputs) writeFileSync(path, contents);

// The preload itself, with the code-cache folder's rules (code-cache-dir.cts) in the same file: a
// second module is a second resolve, read and compile in every start (about 0.3 ms). It stays
// CommonJS and loads the pruning, and tsc's hook modules where there is no bundle, when it needs them.
await build({
  absWorkingDir: root,
  entryPoints: ['instrument/register.cts'],
  outfile: 'dist/instrument/register.cjs',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['./code-cache-prune.cjs', './hook.js'],
  logLevel: 'warning',
});

/**
 * The bundle in ASCII, so that the preload reads it as Latin-1, a copy, where UTF-8 has to be
 * decoded (0.1 ms of every start). esbuild escapes every other character in code; what remains
 * is in comments it keeps, and each UTF-16 unit of it becomes `?` (one unit: the source map holds).
 * @param {string} code
 */
function asAscii(code) {
  return code.replace(/[\u0080-\uffff]/g, '?');
}

/**
 * The bundle as a function expression of its URL that returns `start`, its one export. The
 * wrapper opens on the first line, so the source map's lines still hold; `'use strict'` keeps the
 * module's strict semantics.
 * @param {string} code
 */
function asScript(code) {
  const tail = /\nexport \{\n {2}start\n\};\n(\/\/# sourceMappingURL=bundle\.js\.map\n)$/;
  if (!tail.test(code) || /^(import|export)\b/m.test(code.replace(tail, ''))) {
    console.error('bundle-hook: the bundle should end in `export { start };` and import or export nothing else');
    process.exit(1);
  }
  const script = `(function (${URL_PARAMETER}) { 'use strict'; ${code.replace(tail, '\nreturn start;\n})\n$1')}`;
  try {
    // compiled, not run: what a module allows and a script does not (import.meta, a top-level
    // await) fails here
    new Script(script, { filename: 'bundle.js' });
  } catch (error) {
    console.error(`bundle-hook: the bundle does not compile as a script: ${error.message}`);
    process.exit(1);
  }
  return script;
}

/**
 * The builtins the first pass's output imports, in the order it imports them, each with the names
 * it takes (`default` for a default import). A namespace import or a re-export would need every
 * export of the builtin, lazy getters included: refused.
 * @param {string} code
 * @returns {Map<string, Set<string>>}
 */
function builtinImports(code) {
  const source = ts.createSourceFile('register.js', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
  const found = new Map();
  const refuse = (what) => {
    console.error(`bundle-hook: the hook has ${what}; import builtins by name or as a default`);
    process.exit(1);
  };
  const visit = (node) => {
    if (ts.isImportDeclaration(node)) {
      const specifier = node.moduleSpecifier.text;
      if (!specifier.startsWith('node:')) refuse(`an import of ${specifier}, which is no node: builtin`);
      const names = found.get(specifier) ?? new Set();
      found.set(specifier, names);
      const clause = node.importClause;
      if (clause?.name) names.add('default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) refuse(`a namespace import of ${specifier}`);
      for (const element of bindings?.elements ?? []) names.add((element.propertyName ?? element.name).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      refuse(`a re-export from ${node.moduleSpecifier.text}`);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteral(argument) && argument.text.startsWith('node:'))
        refuse(`a dynamic import of ${argument.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * Resolves every `node:` import to a module that re-exports it from one snapshot module, which
 * takes the builtins from `process.getBuiltinModule` and copies each name the bundle uses. Named
 * imports are then the functions the builtin held when the hook loaded, before any family patched
 * it, as real.ts's are: the hook's own calls never reach a wrapper, so it never records itself.
 * (An ESM import's named bindings would follow the patch after `syncBuiltinESMExports`.) One
 * snapshot for all: esbuild evaluates a module that perturb's or replay's lazily loaded code
 * imports when that code first runs, which could be after patching; the snapshot runs with the
 * first builtin any module imports, and real.ts, imported first, imports builtins.
 * Only the names used are read, so no lazy getter (`fs.promises`) fires unless the hook uses it.
 * @param {Map<string, Set<string>>} builtins
 * @returns {import('esbuild').Plugin}
 */
function builtinsFromProcess(builtins) {
  const local = (index, name) => `b${index}_${name}`;
  const specifiers = [...builtins.keys()];
  const snapshot = specifiers.flatMap((specifier, index) => [
    `const b${index} = process.getBuiltinModule(${JSON.stringify(specifier)});`,
    ...[...builtins.get(specifier)].map((name) =>
      name === 'default'
        ? `export { b${index} as ${local(index, name)} };`
        : `export const ${local(index, name)} = b${index}.${name};`,
    ),
  ]);
  return {
    name: 'builtins-from-process',
    setup(plugin) {
      plugin.onResolve({ filter: /^node:/ }, ({ path }) => ({ path, namespace: NAMESPACE }));
      plugin.onLoad({ filter: /.*/, namespace: NAMESPACE }, ({ path }) => {
        if (path === SNAPSHOT) return { contents: snapshot.join('\n'), loader: 'js' };
        const index = specifiers.indexOf(path);
        if (index === -1) throw new Error(`${path} was not imported in the first pass`);
        const names = [...builtins.get(path)].map((name) => `${local(index, name)} as ${name}`);
        return {
          contents: `export { ${names.join(', ')} } from ${JSON.stringify(`${NAMESPACE}:${SNAPSHOT}`)};`,
          loader: 'js',
        };
      });
      plugin.onResolve({ filter: new RegExp(`^${NAMESPACE}:`) }, ({ path }) => ({
        path: path.slice(NAMESPACE.length + 1),
        namespace: NAMESPACE,
      }));
    },
  };
}
