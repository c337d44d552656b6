import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { listenForMetrics } from './platform/observability/metrics-server';
import type { AppInstance } from './app-options';
import type { AppCore } from './app-core';
import type { HttpFrame } from './app-http';
import type { Config } from './app-config';

/** What the app stops, in order, when it closes. */
export interface Running {
  /** Subscribers are told the server is going away (1001) while the database is still there. */
  live: { close(): Promise<void> };
  changes: { close(): Promise<void> };
  /** The modules' workers: what they have under way finishes before the database closes. */
  workers: { close(): Promise<void> };
  /** Stops accepting connections and waits for in-flight requests (drain plugin). */
  apollo: { stop(): Promise<void> };
}

/** The app as its users hold it: listening, and closing everything in order. */
export function instanceOf(
  parts: Pick<AppInstance, 'schema' | 'logger'> & { config: Config; core: AppCore },
  frame: HttpFrame,
  running: Running,
): AppInstance {
  const { config, core } = parts;
  const { httpServer, metricsHere } = frame;
  let metricsServer: Server | null = null;
  let closed = false;
  return {
    app: frame.app,
    httpServer,
    database: core.database,
    deps: core.deps,
    schema: parts.schema,
    queries: core.queries,
    logger: parts.logger,
    metrics: frame.metrics,
    metricsPort: () => (metricsServer?.address() as AddressInfo | null)?.port ?? null,
    async listen(port = config.port, host = config.host) {
      if (metricsHere && config.metrics.port !== null) {
        metricsServer = await listenForMetrics(metricsHere.handler(), config.metrics, host);
      }
      return new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => {
          const address = httpServer.address() as AddressInfo;
          const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
          resolve(`http://${shownHost}:${address.port}`);
        });
      });
    },
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      frame.state.shuttingDown = true;
      // No new connection from here on (those open finish their requests): the workers below may
      // take a while to stop, and a request accepted meanwhile would be served as usual.
      const drained = httpServer.listening
        ? new Promise<void>((resolve) => httpServer.close(() => resolve()))
        : Promise.resolve();
      const stoppedBackground = core.stopBackground();
      await running.live.close();
      await running.changes.close();
      await running.workers.close();
      await running.apollo.stop();
      await drained;
      const metricsListener = metricsServer;
      if (metricsListener) {
        await new Promise<void>((resolve) => metricsListener.close(() => resolve()));
      }
      await stoppedBackground;
      await core.limiterRedis?.quit().catch(() => undefined);
      await core.database.close();
    },
  };
}
