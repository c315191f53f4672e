import os from 'node:os';
import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, type Native, type Patcher } from './patch.js';
import { calledByNode, real } from './real.js';
import type { Recorder } from './recorder.js';

/**
 * The process identity leaks: `os.hostname()`, `os.tmpdir()` (strings), `os.cpus()` (its length;
 * the program still gets the whole array) and reads of `process.pid`. `String(os.hostname)` and
 * `String(os.tmpdir)` also read the value (Node gives both functions a `Symbol.toPrimitive`), so
 * those count as calls too.
 *
 * `process.pid` is a data property; the only way to see a read is to turn it into an accessor.
 * What a program can tell: its descriptor has `get` instead of `value`/`writable`,
 * `util.inspect(process)` prints `pid: [Getter]`, and assigning to it in strict code throws
 * "has only a getter" instead of "read only" (sloppy code ignores both). Node's own reads (the
 * `(node:PID)` prefix of warnings, NODE_DEBUG lines) are not the program's and are not recorded:
 * the getter looks at its direct caller, a one-frame stack capture that pid reads can afford.
 */
export const install = family<Recorder>('process', (patcher, recorder) => {
  // Perturb mode: another machine's host name, temporary directory, CPU count or line ending.
  const perturber = recorder.perturber;
  const perturbs = {
    hostname: perturber?.variant('hostname') ? (value: string) => perturber.hostname(value) : undefined,
    tmpdir: perturber?.variant('tmpdir') ? (value: string) => perturber.tmpdir(value) : undefined,
  };
  for (const [name, api] of [['hostname', Api.hostname], ['tmpdir', Api.tmpdir]] as const) {
    const original = patcher.method(os, name, recordString(recorder, api, perturbs[name]));
    if (real.getOwnPropertyDescriptor(original, Symbol.toPrimitive) !== undefined) {
      patcher.method(original, Symbol.toPrimitive, recordString(recorder, api, perturbs[name]));
    }
  }
  const cpuCount = perturber?.variant('cpus') ? (count: number) => perturber.cpuCount(count) : undefined;
  patcher.method(os, 'cpus', {
    apply(target, thisArg, args) {
      let cpus = real.apply(target, thisArg, args) as unknown[];
      if (!recorder.on) return cpus;
      // The real entries, repeated or cut to the perturbed count: each still a CPU this machine has.
      if (cpuCount && cpus.length > 0) cpus = withLength(cpus, cpuCount(cpus.length));
      recorder.number(Api.cpus, Tag.uint, recorder.site(Api.cpus), cpus.length);
      return cpus;
    },
  });
  if (perturber?.variant('eol')) patcher.value(os, 'EOL', '\r\n');
  patchPid(patcher, recorder);
});

function withLength(cpus: readonly unknown[], length: number): unknown[] {
  const list: unknown[] = [];
  for (let i = 0; i < length; i++) list[i] = cpus[i % cpus.length];
  return list;
}

function recordString(recorder: Recorder, api: number, perturb?: (value: string) => string): ProxyHandler<Native> {
  return {
    apply(target, thisArg, args) {
      let value = real.apply(target, thisArg, args) as string;
      if (!recorder.on) return value;
      if (perturb) {
        try {
          value = perturb(value);
        } catch (error) {
          recorder.fail('ERR_DETDRIFT_PERTURB', error); // the program gets the real value, unrecorded
          return value;
        }
      }
      recorder.string(api, recorder.site(api), value);
      return value;
    },
  };
}

function patchPid(patcher: Patcher, recorder: Recorder): void {
  const descriptor = real.getOwnPropertyDescriptor(process, 'pid');
  if (descriptor === undefined || !('value' in descriptor)) return; // already an accessor: not ours to guess
  const pid = descriptor.value as number;
  const getter = real.getOwnPropertyDescriptor(
    {
      get pid() {
        if (recorder.on && !calledByNode(getter)) recorder.number(Api.pid, Tag.uint, recorder.site(Api.pid), pid);
        return pid;
      },
    },
    'pid',
  )!.get!;
  patcher.accessor(process, 'pid', getter);
}
