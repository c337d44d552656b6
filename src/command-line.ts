import type { Logger } from 'pino';
import { CONFIG_VARIABLES } from './app-config';
import { EXIT_USAGE, StartupError } from './platform/shared/startup-error';

/** A command's usage: what it does, then the variables that configure it, wrapped for a terminal. */
export function usage(command: string, summary: string): string {
  const lines: string[] = [];
  let line = ' ';
  for (const name of CONFIG_VARIABLES) {
    if (line.length + name.length + 1 > 96) {
      lines.push(line);
      line = ' ';
    }
    line += ` ${name}`;
  }
  lines.push(line);
  return `Usage: ${command}\n\n${summary}\n\nConfigured by environment variables (docs/configuration.md explains each):\n${lines.join('\n')}\n`;
}

/**
 * Called first by a command that takes no arguments: `--help` (or `-h`) prints its usage and
 * exits 0 before anything is opened, created or migrated; any other argument is refused (64).
 */
export function exitOnHelp(argv: readonly string[], text: string): void {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(text);
    process.exit(0);
  }
  if (argv.length > 0) {
    process.stderr.write(`unknown argument: ${argv[0]}\n\n${text}`);
    process.exit(EXIT_USAGE);
  }
}

/**
 * A command that could not start: one log line (a StartupError's message alone, without a stack;
 * anything unexpected with its error) and the exit code that says which kind of failure it was.
 */
export function exitOnStartFailure(logger: Logger, error: unknown): never {
  if (error instanceof StartupError) {
    logger.fatal(error.message);
    process.exit(error.exitCode);
  }
  logger.fatal({ err: error }, 'failed to start');
  process.exit(1);
}
