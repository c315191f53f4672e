/** `detdrift scan`'s options: one package directory, or two versions of one with `--diff`. */
import { resolve } from 'node:path';
import { DEFAULTS } from '../shared/defaults.js';
import type { Command, CommonOptions, RawInvocation } from '../shared/options.js';
import { common, LOG, usage } from '../shared/options.js';

export const command: Command<ScanOptions> = {
  usage: 'detdrift scan DIR [options]  |  detdrift scan --diff A B [options]',
  options: {
    diff: { type: 'boolean', help: 'compare two versions of a package: the sites B adds, removes or changes' },
    json: { type: 'boolean', help: 'print JSON instead of text' },
    ...LOG,
  },
  example: 'detdrift scan --diff ../base/node_modules/dep node_modules/dep',
  normalize: normalizeScan,
  load: () => import('./run.js'),
};

export interface ScanOptions extends CommonOptions {
  /**
   * absolute: the package directory (`node_modules/pkg` works; links are followed); with `--diff`, the new
   * version B
   */
  readonly dir: string;
  /** absolute: with `--diff`, the old version A that `dir` is compared with; null for a plain scan */
  readonly base: string | null;
  readonly json: boolean;
}

function normalizeScan(raw: RawInvocation, cwd: string): ScanOptions {
  if (raw.command !== null) throw usage('scan takes no command after "--"');
  const diff = raw.values.diff === true;
  const wanted = diff ? 2 : 1;
  if (raw.positionals.length !== wanted) {
    throw usage(
      diff
        ? `scan --diff needs two package directories, the old version A and the new B, got ${raw.positionals.length}`
        : `scan needs one package directory, got ${raw.positionals.length}; to compare two versions: scan --diff A B`,
    );
  }
  const [first, second] = raw.positionals.map((path) => resolve(cwd, path));
  return Object.freeze({
    ...common(raw, cwd),
    dir: diff ? second! : first!,
    base: diff ? first! : null,
    json: raw.values.json === true ? true : DEFAULTS.json,
  });
}
