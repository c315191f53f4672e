/**
 * platforms/: the same run recorded on Linux, macOS and Windows compares clean once paths, line
 * endings and host identity are normalized, and a real difference between them is still found.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { compare } from '../../diffing/compare.js';
import { Interner, loadTrace } from '../../diffing/load.js';
import { pairView, platformOf } from '../../platforms/index.js';
import { inferRoot, normalizePath } from '../../platforms/paths.js';
import { digestBytes, digestLines } from '../../tracer/digest.js';
import { detdrift, reportOf } from '../cli-fixtures.js';
import { project, runHooked, tempDir } from '../helpers.js';
import { program, writeRun, type Os } from '../platform-traces.js';

const context = (os: Os, root: string | null = null, foldCase = false) => ({
  platform: platformOf(os),
  root,
  foldCase,
});

test('each platform reads its own paths: separators, drive letters, the project root, temp and home directories', () => {
  assert.equal(normalizePath('C:\\proj\\lib\\util.js', context('win32', 'c:/proj')), 'lib/util.js');
  assert.equal(normalizePath('c:/PROJ/app.js', context('win32', 'c:/proj')), 'app.js', 'NTFS names ignore case');
  assert.equal(normalizePath('\\\\?\\C:\\proj\\app.js', context('win32', 'c:/proj')), 'app.js', 'long-path prefix');
  assert.equal(normalizePath('C:\\Users\\RUNNER~1\\AppData\\Local\\Temp\\x.js', context('win32')), '<tmp>/x.js');
  assert.equal(
    normalizePath('D:\\a\\repo\\repo\\test\\sim.js', context('win32')),
    'test/sim.js',
    "a GitHub runner's checkout",
  );
  assert.equal(normalizePath('C:\\Users\\ada\\src\\x.js', context('win32')), '<home>/src/x.js');
  assert.equal(normalizePath('/private/var/folders/x7/k2j9f0/T/x.js', context('darwin')), '<tmp>/x.js');
  assert.equal(normalizePath('/var/folders/x7/k2j9f0/T', context('darwin')), '<tmp>');
  assert.equal(normalizePath('/Users/runner/work/repo/repo/app.js', context('darwin')), 'app.js');
  assert.equal(normalizePath('/home/runner/work/repo/repo/app.js', context('linux')), 'app.js');
  assert.equal(normalizePath('/tmp/build/x.js', context('linux')), '<tmp>/build/x.js');
  assert.equal(normalizePath('/home/ada/x.js', context('linux')), '<home>/x.js');
  // On Linux a backslash is part of a name, and a name's case tells files apart.
  assert.equal(normalizePath('dir\\name.js', context('linux')), 'dir\\name.js');
  assert.equal(normalizePath('/proj/App.js', context('linux', '/proj')), 'App.js');
  assert.equal(
    normalizePath('/proj/App.js', context('linux', '/proj', true)),
    'app.js',
    'folded when the other platform ignores case',
  );
  assert.equal(normalizePath('dep@1.0.0/index.js', context('win32')), 'dep@1.0.0/index.js');
  assert.equal(normalizePath('node:fs', context('win32')), 'node:fs');
});

test("a root is inferred from the prefix that turns one trace's absolute frames into the other's project files", () => {
  const relative = new Set(['app.js', 'lib/util.js']);
  assert.equal(inferRoot(['c:/proj/app.js', 'c:/proj/lib/util.js', 'c:/tools/x.js'], relative, true), 'c:/proj');
  assert.equal(
    inferRoot(['/private/tmp/p/lib/util.js'], relative, false),
    '/private/tmp/p',
    'the longest project-relative suffix wins',
  );
  assert.equal(inferRoot(['/usr/lib/node/x.js'], relative, false), null);
});

test('output digests read \\r\\n as \\n; the byte length still counts the \\r', () => {
  const crlf = new TextEncoder().encode('a\r\nb\r\n');
  const lf = new TextEncoder().encode('a\nb\n');
  assert.deepEqual(digestLines(crlf), digestLines(lf));
  assert.deepEqual(digestLines(lf), digestBytes(lf), 'text without \\r digests as before');
  assert.notDeepEqual(
    digestLines(new TextEncoder().encode('a\rb')),
    digestLines(new TextEncoder().encode('ab')),
    'a lone \\r is content',
  );
});

test('the same run recorded on Windows (C:\\proj\\app.js, \\r\\n) and on macOS (other case, /var/folders) compares equal to Linux', () => {
  const dir = tempDir();
  const linux = writeRun(dir, 'linux', 'linux', program('linux'));
  for (const os of ['win32', 'darwin'] as const) {
    const other = writeRun(dir, os, os, program(os));
    for (const [a, b] of [
      [linux, other],
      [other, linux],
    ]) {
      const comparison = compare(a, b);
      assert.equal(comparison.normalized, true, `${os}: the platforms differ, so the views apply`);
      assert.equal(comparison.verdict, 'agree', `${os}: ${JSON.stringify(comparison.diverging?.first)}`);
    }
  }
  // The same traces compared without the views part at once: the differences are real bytes.
  assert.equal(compare(linux, join(dir, 'win32'), { normalize: false }).verdict, 'diverge');
});

test('only the platform differs: the views apply across platforms, not between two Linux runs', () => {
  const dir = tempDir();
  const linux = writeRun(dir, 'a', 'linux', program('linux'));
  const renamed = writeRun(
    dir,
    'b',
    'linux',
    program('linux').map((step) => ({ ...step, at: step.at.replace('app.js', 'App.js') })),
  );
  const comparison = compare(linux, renamed);
  assert.equal(comparison.normalized, false);
  assert.equal(comparison.verdict, 'diverge', 'on Linux, App.js and app.js are two files');
});

test('a difference between platforms is still found, at the listing the program printed, in the package that listed', () => {
  const dir = tempDir();
  const linux = writeRun(dir, 'linux', 'linux', program('linux'));
  const windows = writeRun(dir, 'win32', 'win32', program('win32', { listing: ['b.txt', 'a.txt'] }));
  const comparison = compare(linux, windows);
  assert.equal(comparison.verdict, 'diverge');
  const cause = comparison.diverging!.cause!;
  assert.equal(cause.kind, 'call');
  assert.equal(cause.row?.event.api, 'fs.readdir');
  assert.deepEqual(comparison.diverging!.a!.sites.get(cause.row!.event.site)?.frames[0]?.file, 'dep@1.0.0/index.js');
  assert.equal(comparison.diverging!.first?.reason, 'value', 'the listing itself, before the output it changed');
});

test('detdrift diff compares a Linux and a Windows trace cleanly, and names the platform paths portably when they part', () => {
  const dir = tempDir();
  const cwd = project({ 'package.json': { name: 'fixture', version: '1.0.0' } });
  const linux = writeRun(dir, 'linux', 'linux', program('linux'));
  assert.equal(
    reportOf(
      detdrift(['diff', '--json', '--no-confirm', linux, writeRun(dir, 'win32', 'win32', program('win32'))], cwd),
      0,
    ).verdict,
    'agree',
  );
  const parted = writeRun(dir, 'win32-parted', 'win32', program('win32', { printed: 'first B' }));
  const report = reportOf(detdrift(['diff', '--json', '--no-confirm', linux, parted], cwd), 1);
  assert.equal(report.firstDivergence?.reason, 'output');
  assert.equal(report.firstDivergence?.b?.site?.file, 'app.js', 'C:\\proj\\app.js, relative to the inferred root');
  assert.deepEqual([report.runs.a?.platform, report.runs.b?.platform], ['linux', 'win32']);
});

test('the views compare host identity, stat times and temp paths as placeholders, and keep the events as recorded', () => {
  const dir = tempDir();
  const linux = compare(writeRun(dir, 'l', 'linux', program('linux')), writeRun(dir, 'w', 'win32', program('win32')));
  const [a, b] = [linux.processes[0]!.a!, linux.processes[0]!.b!];
  const value = (trace: typeof a, api: string) => [...trace.calls].find((row) => row.event.api === api)!;
  assert.deepEqual(
    ['os.hostname', 'os.cpus', 'fs.stat', 'os.tmpdir'].map((api) => value(b, api).value),
    ['<hostname>', '<cpus>', '<mtime>', '<tmp>'],
  );
  assert.equal(value(b, 'os.hostname').event.value, 'fv-az512-301', 'the report still shows what was recorded');
  assert.equal(value(a, 'os.tmpdir').value, '<tmp>');
  const raw = (file: string) => loadTrace(join(file, '0.ddtrace'), new Interner());
  const view = pairView(raw(join(dir, 'l')), raw(join(dir, 'w')));
  const site = {
    frames: [{ file: 'C:\\proj\\Lib\\Util.js', line: 1, column: 1, fn: null, package: null }],
    skipped: 0,
  };
  assert.equal(
    view.b.site(site).frames[0]!.file,
    'lib/util.js',
    'compared: relative to the inferred root c:/proj, case folded',
  );
  assert.equal(
    view.b.shown(site).frames[0]!.file,
    'Lib/Util.js',
    'shown: in its own case, so a code frame can read the file',
  );
});

test('the hook digests os.EOL text alike: on one platform \\r\\n still parts the runs (length), across platforms it does not', () => {
  const dir = project({
    'app.js': "const os = require('os');\nprocess.stdout.write(['one', 'two', ''].join(os.EOL));\n",
  });
  const env = { DETDRIFT_SEED: '3' };
  const plain = runHooked(['app.js'], { cwd: dir, env: { ...env, DETDRIFT_MODE: 'control' } });
  const crlf = runHooked(['app.js'], { cwd: dir, env: { ...env, DETDRIFT_MODE: 'perturb', DETDRIFT_PERTURB: 'eol' } });
  assert.equal(crlf.stdout, 'one\r\ntwo\r\n');
  const write = (run: typeof plain) =>
    run.traces.get('0')!.events.find((event) => event.api === 'process.stdout')!.value as {
      digest: string;
      length: number;
    };
  assert.equal(write(crlf).digest, write(plain).digest);
  assert.deepEqual([write(plain).length, write(crlf).length], [8, 10]);
  assert.equal(compare(crlf.traceDir, plain.traceDir).verdict, 'diverge');
  assert.equal(compare(crlf.traceDir, plain.traceDir, { normalize: true }).verdict, 'agree');
});
