/**
 * One program as Linux, macOS and Windows record it, written with the real writer: what the
 * platforms/ tests and the matrix tests compare. Windows frames keep `C:\proj\...` (a root the
 * writer did not strip), macOS frames name the files in another case (`require('./Lib/Util')`
 * resolves as typed there), and every machine has its own host name, CPU count and stat times.
 */
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { Api, type ApiKey } from '../tracer/apis.js';
import { digestLines } from '../tracer/digest.js';
import { Tag, type Frame } from '../tracer/format.js';
import { TraceWriter } from '../tracer/writer.js';
import { header } from './synthetic.js';

export type Os = 'linux' | 'darwin' | 'win32';

export interface Step {
  readonly api: ApiKey;
  /** `path:line`; the path may be a Windows one (`C:\proj\app.js:3`) */
  readonly at: string;
  readonly value?: number | string | readonly string[];
  /** an output: the text written (digested as the hook does), or a file's path as the head */
  readonly text?: string;
  readonly head?: string;
}

export interface Variant {
  /** the order this run's directory listing came in */
  readonly listing?: readonly string[];
  /** what the program printed about it */
  readonly printed?: string;
}

const PATHS: Record<Os, { app: string; util: string; tmp: string; out: string; sub: string; eol: string }> = {
  linux: { app: 'app.js', util: 'lib/util.js', tmp: '/tmp', out: 'out/result.txt', sub: 'sub/x.txt', eol: '\n' },
  darwin: {
    app: 'App.js',
    util: 'Lib/Util.js',
    tmp: '/var/folders/x7/k2j9f0/T',
    out: 'out/result.txt',
    sub: 'sub/x.txt',
    eol: '\n',
  },
  win32: {
    app: 'C:\\proj\\app.js',
    util: 'C:\\proj\\lib\\util.js',
    tmp: 'C:\\Users\\RUNNER~1\\AppData\\Local\\Temp',
    out: 'C:\\proj\\out\\result.txt',
    sub: 'sub\\x.txt',
    eol: '\r\n',
  },
};
const MACHINE: Record<Os, { host: string; cpus: number; mtime: number }> = {
  linux: { host: 'runner-7f3a', cpus: 4, mtime: 1_700_000_000_000 },
  darwin: { host: 'Mac-mini.local', cpus: 3, mtime: 1_700_000_123_456 },
  win32: { host: 'fv-az512-301', cpus: 2, mtime: 1_700_000_999_000 },
};

/** The program's calls and outputs as `os` records them; `variant` changes what the listing gave and what it printed. */
export function program(os: Os, variant: Variant = {}): Step[] {
  const p = PATHS[os];
  const m = MACHINE[os];
  const listing = variant.listing ?? ['a.txt', 'b.txt'];
  return [
    { api: 'mathRandom', at: `${p.app}:2`, value: 0.25 },
    { api: 'hostname', at: `${p.util}:4`, value: m.host },
    { api: 'cpus', at: `${p.util}:5`, value: m.cpus },
    { api: 'tmpdir', at: `${p.util}:6`, value: p.tmp },
    { api: 'statSync', at: `${p.util}:7`, value: m.mtime },
    { api: 'readdirSync', at: 'dep@1.0.0/index.js:3', value: listing },
    { api: 'readdirSync', at: `${p.app}:8`, value: ['a.txt', 'b.txt', 'sub', p.sub] },
    { api: 'stdout', at: `${p.app}:9`, text: `${variant.printed ?? `first ${listing[0]}`}${p.eol}total 3${p.eol}` },
    { api: 'fileWrite', at: `${p.app}:10`, text: `a${p.eol}b${p.eol}`, head: p.out },
  ];
}

/** Writes `steps` as the trace file `dir/name/0.ddtrace`, with the header of a run on `os`; returns the run's directory. */
export function writeRun(
  dir: string,
  name: string,
  os: Os,
  steps: readonly Step[],
  overrides: { node?: string; seed?: string } = {},
): string {
  const runDir = join(dir, name);
  mkdirSync(runDir, { recursive: true });
  const fd = openSync(join(runDir, '0.ddtrace'), 'w');
  const writer = new TraceWriter(
    { write: (bytes) => void writeSync(fd, bytes) },
    header({ platform: os, mode: 'control', node: overrides.node ?? 'v20.11.1', seed: overrides.seed ?? '42' }),
  );
  const sites = new Map<string, number>();
  for (const step of steps) {
    let site = sites.get(step.at);
    if (site === undefined) {
      site = sites.size + 1;
      sites.set(step.at, site);
      writer.defineSite(site, { frames: [frameOf(step.at)], skipped: 0 });
    }
    const api = Api[step.api];
    if (step.text !== undefined) {
      const bytes = new TextEncoder().encode(step.text);
      const { high, low } = digestLines(bytes);
      writer.chunk(api, site, 0, high, low, bytes.length, step.head ?? step.text.slice(0, 64));
    } else if (Array.isArray(step.value)) writer.object(api, Tag.list, site, 0, step.value);
    else if (typeof step.value === 'string') writer.object(api, Tag.string, site, 0, step.value);
    else writer.number(api, step.api === 'cpus' ? Tag.uint : Tag.f64, site, 0, (step.value as number | undefined) ?? 0);
  }
  writer.end(0);
  closeSync(fd);
  return runDir;
}

function frameOf(at: string): Frame {
  const colon = at.lastIndexOf(':');
  const file = at.slice(0, colon);
  const pkg = /^((?:@[^/]+\/)?[^/@]+@[^/]+)\//.exec(file)?.[1] ?? null;
  return { file, line: Number(at.slice(colon + 1)), column: 1, fn: null, package: pkg };
}
