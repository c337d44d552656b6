import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Express } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from 'pino';
import type { RequestInfo } from './platform/auth/tokens';
import type { ModuleRoute, ModuleWorker, WantsOf } from './platform/composition/module';
import type { EventHub } from './platform/live/event-hub';
import type { Metrics } from './platform/observability/metrics';
import type { Config } from './app-config';
import {
  type AppDependencies,
  type AppSetup,
  type Caller,
  type Context,
  type Notice,
  parts,
} from './context';

/** What the app hands the modules' routes and workers: the process's wiring. */
export interface AppRuntime {
  config: Config;
  deps: AppDependencies;
  logger: Logger;
  schema: GraphQLSchema;
  /** A URL with sessions of their own (LISTEN): DATABASE_DIRECT_URL behind a pooler. */
  sessionUrl: string;
  /** This instance's committed changes, as its subscribers hear them. */
  hub: EventHub<Notice>;
  createContext(request: RequestInfo): Promise<Context>;
  contextOf(user: Caller, over: EntityManager | Context): Context;
  /** The process's metrics (null: METRICS=false); modules add counters of their own. */
  metrics: Metrics | null;
  /**
   * An ORM on connections of its own (`poolSize` of them), named for its `work` in the server's
   * activity; its user closes it.
   */
  backgroundOrm(work: string, poolSize: number): Promise<MikroORM>;
}

/**
 * Compiles only when the app gives every module what its `deps`, `routes` and `worker` ask for:
 * a module asking for more than the app has fails here, not at run time.
 */
type Gives<Have extends Want, Want> = [Have, Want];
export type ModulesAreGiven = [
  Gives<AppSetup, WantsOf<typeof parts, 'deps'>>,
  Gives<Config | null, WantsOf<typeof parts, 'listBounds'>>,
  Gives<AppRuntime, WantsOf<typeof parts, 'routes'>>,
  Gives<AppRuntime, WantsOf<typeof parts, 'worker'>>,
];

/** Mounts every module's own HTTP routes. */
export function mountModuleRoutes(app: Express, runtime: AppRuntime): void {
  for (const part of parts) {
    if ('routes' in part) {
      const routes = (part.routes as (runtime: AppRuntime) => readonly ModuleRoute[])(runtime);
      for (const route of routes) {
        app.use(route.path, route.handler);
      }
    }
  }
}

/** Starts every module's worker; closing the answer closes them, the last started first. */
export async function startModuleWorkers(runtime: AppRuntime): Promise<ModuleWorker> {
  const workers: ModuleWorker[] = [];
  for (const part of parts) {
    if ('worker' in part) {
      workers.push(await (part.worker as (runtime: AppRuntime) => Promise<ModuleWorker>)(runtime));
    }
  }
  return {
    async close() {
      for (const worker of workers.reverse()) {
        await worker.close();
      }
    },
  };
}
