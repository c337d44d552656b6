import { createServer } from 'node:net';
import { EXIT_CONFIG, StartupError } from '../shared/startup-error';

/** What a failed bind means to the operator, by its error code. */
const BIND_PROBLEMS: Record<string, (port: number, host: string) => string> = {
  EADDRINUSE: (port, host) =>
    `port ${port} on ${host} is already in use: set PORT to a free port, or stop what listens there`,
  EACCES: (port, host) =>
    `port ${port} on ${host} needs privileges this process lacks: set PORT to 1024 or above`,
  EADDRNOTAVAIL: (_port, host) => `${host} is not an address of this machine: set HOST`,
  ENOTFOUND: (_port, host) => `${host} is not a known host name: set HOST`,
};

/**
 * Checked before anything else starts (the database, the schema): a busy port is reported in one
 * line naming the variable to set, not after seconds of set-up as a WebSocket server's error with
 * a stack. The probe is closed at once; the service binds the port moments later.
 */
export function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => {
      const problem = BIND_PROBLEMS[error.code ?? ''];
      reject(
        problem
          ? new StartupError(problem(port, host), EXIT_CONFIG)
          : new StartupError(`cannot listen on ${host}:${port} (PORT, HOST): ${error.message}`),
      );
    });
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}
