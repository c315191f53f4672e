import { Api } from '../tracer/apis.js';
import { Tag } from '../tracer/format.js';
import { family, type Native } from './patch.js';
import { real, realOs } from './real.js';
import type { Recorder } from './recorder.js';

/**
 * The process identity leaks: `os.hostname()`, `os.tmpdir()` (strings) and `os.cpus()` (its
 * length; the program still gets the whole array). `String(os.hostname)` and `String(os.tmpdir)`
 * also read the value (Node gives both functions a `Symbol.toPrimitive`), so those count as calls.
 *
 * Reads of `process.pid` are not recorded: it is a data property, and the only way to see a read
 * is to turn it into an accessor, which a program sees (its descriptor, `util.inspect(process)`,
 * the error assigning to it in strict code). `detdrift scan` still finds the reads in the source.
 */
export const install = family<Recorder>('process', (patcher, recorder) => {
  const { os } = realOs();
  // Perturb mode: another machine's host name, temporary directory, CPU count or line ending.
  const perturber = recorder.perturber;
  const perturbs = {
    hostname: perturber?.variant('hostname') ? (value: string) => perturber.hostname(value) : undefined,
    tmpdir: perturber?.variant('tmpdir') ? (value: string) => perturber.tmpdir(value) : undefined,
  };
  // index loops: the family may install in the program's time (deferred.ts), under its built-ins
  const named = [
    ['hostname', Api.hostname],
    ['tmpdir', Api.tmpdir],
  ] as const;
  for (let i = 0; i < named.length; i++) {
    const name = named[i]![0];
    const api = named[i]![1];
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
