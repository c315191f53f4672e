import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CliError, reportError } from '../../cli/shared/errors.js';
import { Interrupted } from '../../cli/shared/interrupt.js';
import { LockfileError } from '../../diffing/lockfile/errors.js';
import { ScanDirectoryError } from '../../diffing/scan/directory.js';
import { CodedError, HookError, TraceError } from '../../tracer/errors.js';

test('every coded error is reported with its code, and exits with its status, whatever layer threw it', () => {
  const errors: Array<[CodedError, number]> = [
    [new CliError('ERR_CONFIG', 'a config problem'), 2],
    [new CliError('ERR_INTERNAL', 'a bug'), 3],
    [new Interrupted('SIGTERM'), 143],
    [new TraceError('ERR_TRACE_CORRUPT', 'a.ddtrace', 12, 'a chunk'), 2],
    [new LockfileError('ERR_LOCKFILE_PARSE', 'yarn.lock', { line: 3 }, 'a bad line'), 2],
    [new ScanDirectoryError('/nowhere', 'not a directory'), 2],
  ];
  for (const [error, status] of errors) {
    assert.ok(error instanceof CodedError);
    assert.deepEqual(reportError(error), { status, text: `detdrift: ${error.code}: ${error.message}\n` }, error.name);
  }
  assert.equal(new HookError('ERR_DETDRIFT_MODE', 'bad').name, 'HookError');
  assert.equal(reportError(new Error('boom')).status, 3);
  assert.match(reportError(new Error('boom')).text, /^detdrift: ERR_INTERNAL: Error: boom\n/);
});
