/**
 * The CLI: wiring only, started by the bin (entry.ts). Every
 * error becomes output and an exit status in reportError.
 */
import { parseCommandLine } from './args.js';
import { reportError } from './shared/errors.js';
import type { Logger } from './shared/logger.js';
import { checkNodeVersion } from './node-version.js';

async function main(argv: readonly string[]): Promise<number> {
  let logger: Logger | undefined;
  try {
    await checkNodeVersion(process.versions.node);
    const invocation = await parseCommandLine(argv, process.cwd());
    if (invocation.kind === 'print') {
      process.stdout.write(invocation.text);
      return 0;
    }
    // Loaded after the version check, like every command: an old Node must get ERR_NODE_VERSION, not a crash.
    const { createLogger } = await import('./shared/logger.js');
    const { logLevel: level, logFormat: format, logFile: file } = invocation.options;
    logger = createLogger({ level, format, file });
    const { run } = await invocation.command.load();
    return await run(invocation.options, { logger });
  } catch (error) {
    logger?.debug({ err: error }, 'command failed');
    const { status, text } = reportError(error);
    process.stderr.write(text);
    return status;
  }
}

// exitCode, not exit(): stdout may still be draining into a pipe.
process.exitCode = await main(process.argv.slice(2));
