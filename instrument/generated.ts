import { findSourceMap, Module } from 'node:module';
import vm from 'node:vm';
import { frameFile, type StackContext } from '../tracer/stack.js';
import type { SourceDef } from '../tracer/format.js';
import {
  ArgAt,
  JSONStringify,
  StringCharCodeAt,
  StringIncludes,
  StringIndexOf,
  StringLastIndexOf,
  StringSlice,
} from '../tracer/primordials.js';
import type { TraceWriter } from '../tracer/writer.js';
import { family, type Native } from './patch.js';
import { dataValue, real, SafeMap, type CallSite } from './real.js';
import type { Recorder } from './recorder.js';

/** A `sourceMappingURL` comment that holds the map itself, base64-encoded, as transformers write it. */
const INLINE = 'sourceMappingURL=data:application/json;';
const BASE64 = ';base64,';
/** Node's own getter, read when the hook loads: whether a loader (tsx) turned Node's source maps on. */
const sourceMapsEnabled = real.getOwnPropertyDescriptor(process, 'sourceMapsEnabled')?.get;

/**
 * The source maps of code that exists only in this process: what a loader or runner compiled
 * after transforming a file (tsx and ts-node through `Module#_compile`, Jest and Vitest through
 * `vm`), whose inline map no file on disk holds. A compile only notes the code under the name it
 * was compiled with (the latest per name, held until a stack names the file: mostly code V8
 * keeps anyway); the map is looked for once, when a sampled stack first names the file, and is
 * written before the site that names it.
 * Everything a file on disk says (a bundled dependency's `.map`) is read later, by the report.
 */
export class GeneratedCode {
  private readonly code = new SafeMap<string, string>();
  /** the names already looked at, whether they had a map or not */
  private readonly seen = new SafeMap<string, true>();
  private written = 0;

  /** Notes `code`, compiled under `filename`: an engine name (a path or a URL), or a program's `vm` options. */
  note(filename: unknown, code: unknown): void {
    if (typeof filename === 'string' && typeof code === 'string' && !this.seen.has(filename))
      this.code.set(filename, code);
  }

  /**
   * Writes the maps of the files these frames name that have one held in memory and none written
   * yet. A map that cannot be had is left out: the report then shows the generated position.
   */
  define(frames: readonly CallSite[], stack: StackContext, writer: TraceWriter): void {
    for (let i = 0; i < frames.length; i++) {
      const path = frames[i]!.getFileName();
      if (typeof path !== 'string' || this.seen.has(path)) continue;
      this.seen.set(path, true);
      let def: SourceDef | null = null;
      try {
        const map = this.mapOf(path);
        const kept = map === null ? null : frameFile(path, stack);
        if (kept !== null) def = { file: kept.file, path, map: map! };
      } catch {
        continue; // a payload that does not serialize: this file's frames stay generated
      }
      if (def !== null) writer.defineSource(++this.written, def);
    }
  }

  /**
   * The inline map of the code compiled under `path`; else the map Node keeps for it, when a
   * loader turned Node's source maps on (tsx does, and its ES modules reach no hook here), outside
   * node_modules, where a package's maps are files the report reads.
   */
  private mapOf(path: string): string | null {
    const code = this.code.get(path);
    if (code !== undefined) {
      this.code.delete(path);
      return inlineMap(code);
    }
    if (StringIncludes(path, '/node_modules/') || StringIncludes(path, '\\node_modules\\')) return null;
    if (sourceMapsEnabled === undefined || real.apply(sourceMapsEnabled, process, []) !== true) return null;
    const payload = (findSourceMap(path) as { payload?: unknown } | undefined)?.payload;
    return payload === undefined ? null : (JSONStringify(payload) ?? null);
  }
}

/**
 * The `data:` URL of the last inline `//# sourceMappingURL=` comment in `code`, or null: a comment
 * that starts a line and holds nothing but base64 (a string in the code that looks like one, as
 * in a loader's own source, is none).
 */
function inlineMap(code: string): string | null {
  const at = StringLastIndexOf(code, INLINE);
  if (at < 4 || (StringSlice(code, at - 4, at - 1) !== '//#' && StringSlice(code, at - 4, at - 1) !== '//@'))
    return null;
  if (at > 4 && code[at - 5] !== '\n' && code[at - 5] !== '\r') return null;
  const start = at + 'sourceMappingURL='.length;
  const comma = StringIndexOf(code, BASE64, start);
  if (comma < 0) return null;
  let end = comma + BASE64.length;
  // A loop, not a regular expression: any match the hook runs sets the program's RegExp.lastMatch,
  // RegExp.$1, RegExp.input and the rest of the legacy statics (primordials.ts, isDigits).
  while (end < code.length && isBase64(StringCharCodeAt(code, end))) end++;
  const rest = StringSlice(code, end, end + 2);
  return end > comma + BASE64.length && (rest === '' || rest[0] === '\n' || rest[0] === '\r')
    ? StringSlice(code, start, end)
    : null;
}

function isBase64(char: number): boolean {
  return (
    (char >= 65 && char <= 90) ||
    (char >= 97 && char <= 122) ||
    (char >= 48 && char <= 57) ||
    char === 43 ||
    char === 47 ||
    char === 61
  );
}

/** The `filename` a `vm` call was given: a string, or an own data property of its options. */
function filenameOf(options: unknown): unknown {
  if (typeof options === 'string') return options;
  if (typeof options !== 'object' || options === null) return undefined;
  const value = dataValue(options, 'filename');
  return typeof value === 'string' ? value : undefined;
}

/**
 * Notes what the program compiles under a name: `Module#_compile(code, filename)`, `new
 * vm.Script(code, options)`, `vm.compileFunction(code, params, options)` and the `vm.runIn*`
 * functions, whose options come last.
 */
export const install = family<Recorder>('generated code', (patcher, recorder) => {
  const code = recorder.generated;
  const noting = (codeAt: number, optionsAt: number): ProxyHandler<Native> => ({
    apply(target, thisArg, args) {
      code.note(filenameOf(ArgAt(args, optionsAt)), ArgAt(args, codeAt));
      return real.apply(target, thisArg, args);
    },
  });
  if (compilesInMemory()) {
    patcher.method(Module.prototype, '_compile', {
      apply(target, thisArg, args) {
        code.note(ArgAt(args, 1), ArgAt(args, 0));
        return real.apply(target, thisArg, args);
      },
    });
  }
  patcher.method(vm, 'Script', {
    construct(target, args, newTarget) {
      code.note(filenameOf(ArgAt(args, 1)), ArgAt(args, 0));
      return real.construct(target, args, newTarget);
    },
  });
  patcher.method(vm, 'compileFunction', noting(0, 2));
  patcher.method(vm, 'runInThisContext', noting(0, 1));
  patcher.method(vm, 'runInContext', noting(0, 2));
  patcher.method(vm, 'runInNewContext', noting(0, 2));
});

/**
 * The CommonJS loaders that compile a file's code in memory and hand it to `Module#_compile`, whose
 * inline maps only that call sees (tsx needs none: it turns Node's source maps on, mapOf asks them).
 */
const LOADERS = [
  'ts-node',
  'babel-register',
  '@babel/register',
  'pirates',
  'esbuild-register',
  '@swc/register',
  '@swc-node/register',
  'sucrase',
];

/**
 * Whether this process runs one of LOADERS, as its command line names it (the script, `--require`
 * in its flags or NODE_OPTIONS). Only then is `Module#_compile` wrapped: a wrapper there is a frame
 * in the stack of every error a CommonJS module makes while it is evaluated; under such a loader the
 * loader's own frames are there too.
 */
function compilesInMemory(): boolean {
  const named = [process.argv[1] ?? '', process.env.NODE_OPTIONS ?? '', ...process.execArgv];
  for (let i = 0; i < named.length; i++)
    for (let j = 0; j < LOADERS.length; j++) if (StringIncludes(named[i]!, LOADERS[j]!)) return true;
  return false;
}
