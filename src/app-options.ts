import type { Server } from 'node:http';
import type { Express } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { PasswordHashCost } from './platform/auth/password';
import type { Metrics } from './platform/observability/metrics';
import type { QueryCounter } from './platform/observability/request-tracking';
import type { Database } from './platform/postgres/orm';
import type { Config } from './app-config';
import type { AppDependencies } from './context';

export interface CreateAppOptions {
  config: Config;
  logger?: Logger;
  /** Apply pending migrations at start (default true). */
  migrate?: boolean;
  /** Override argon2 cost (tests use a cheap one). */
  passwordCost?: PasswordHashCost;
}

/** A wired service instance: not listening until `listen` is called. */
export interface AppInstance {
  app: Express;
  httpServer: Server;
  database: Database;
  deps: AppDependencies;
  schema: GraphQLSchema;
  queries: QueryCounter;
  logger: Logger;
  /** Prometheus metrics, unless switched off. */
  metrics: Metrics | null;
  /** The port metrics are served on when METRICS_PORT gives them one of their own. */
  metricsPort(): number | null;
  listen(port?: number, host?: string): Promise<string>;
  close(): Promise<void>;
}
