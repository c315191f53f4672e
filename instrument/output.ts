import fs from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { Api } from '../tracer/apis.js';
import { family, type Native } from './patch.js';
import { real, SafeWeakSet } from './real.js';
import type { Recorder } from './recorder.js';

/** How much of a write the trace keeps as text; the digest covers all of it. */
const HEAD = 64;

interface OutputSettings {
  readonly recorder: Recorder;
  readonly root: string;
}

/**
 * What the program shows the world, so a divergence in what it did can be told from one in what
 * it drew: stdout and stderr writes, files written whole (`writeFile`, `appendFile` in every
 * form), checkpoints, and (in the recorder) the exit code. Streams to files and `fs.write` on a
 * descriptor are not followed.
 */
export const install = family<OutputSettings>('output', (patcher, { recorder, root }) => {
  // process.stdout is created on first access; patch it then, so the hook does not create it early.
  for (const [name, api] of [['stdout', Api.stdout], ['stderr', Api.stderr]] as const) {
    const patched = new SafeWeakSet<object>();
    patcher.getter(process, name, {
      apply(target, thisArg, args) {
        const stream = real.apply(target, thisArg, args) as NodeJS.WriteStream;
        if (!patched.has(stream)) {
          patched.add(stream);
          patcher.shadow(stream, 'write', stream.write as Native, recordWrite(recorder, api));
        }
        return stream;
      },
    });
  }
  const fileHandler = recordFile(recorder, root);
  for (const name of ['writeFile', 'writeFileSync', 'appendFile', 'appendFileSync'] as const) {
    patcher.method(fs, name, fileHandler);
  }
  for (const name of ['writeFile', 'appendFile'] as const) patcher.method(fs.promises, name, fileHandler);
});

function recordWrite(recorder: Recorder, api: number): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      const chunk = args[0] as unknown;
      if (recorder.on && (typeof chunk === 'string' || ArrayBuffer.isView(chunk))) {
        try {
          const head = typeof chunk === 'string' ? chunk.slice(0, HEAD) : decoder.decode(new Uint8Array(chunk.buffer, chunk.byteOffset, Math.min(HEAD, chunk.byteLength)));
          recorder.chunk(api, recorder.site(api), chunk as string | ArrayBufferView, head);
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_OUTPUT', error); // a view of a detached buffer, say: the write itself is Node's to judge
        }
      }
      return real.apply(target, thisArg, args);
    },
  };
}

/** Records a whole-file write at the call: the path (project-relative) and the data's digest. */
function recordFile(recorder: Recorder, root: string): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      const [file, data] = args as [unknown, unknown];
      if (recorder.on && (typeof file === 'string' || file instanceof URL) && (typeof data === 'string' || ArrayBuffer.isView(data))) {
        try {
          recorder.chunk(Api.fileWrite, recorder.site(Api.fileWrite), data as string | ArrayBufferView, displayPath(file, root));
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_OUTPUT', error);
        }
      }
      return real.apply(target, thisArg, args);
    },
  };
}

function displayPath(file: string | URL, root: string): string {
  const absolute = resolve(typeof file === 'string' ? file : file.pathname);
  const rel = relative(root, absolute);
  return (rel.startsWith('..') ? absolute : rel).split(sep).join('/');
}

const decoder = new TextDecoder();
