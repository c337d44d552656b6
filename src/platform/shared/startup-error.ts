/** Exit codes of sysexits.h, so a supervisor can tell a bad configuration from a lost dependency. */
export const EXIT_USAGE = 64;
export const EXIT_UNAVAILABLE = 69;
export const EXIT_CONFIG = 78;

/**
 * A reason the service cannot start that its operator fixes: the message is one line naming the
 * variable to change and the host or port concerned (never a password), printed without a stack.
 */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_UNAVAILABLE,
  ) {
    super(message);
    this.name = 'StartupError';
  }
}
