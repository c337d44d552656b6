import type { Logger } from 'pino';
import type { RequestInfo } from '../../platform/auth/tokens';
import type { ModuleRoute } from '../../platform/composition/module';
import { publicBaseUrl } from '../../platform/http/public-url';
import { Turns } from '../../platform/shared/turns';
import type { Context } from './calendar.context';
import { CALENDAR_PATH } from './calendar.links';
import { calendarRoutes, FEED_BUILDS_AT_ONCE } from './calendar.routes';

/** What calendar feeds need of the process. */
export interface CalendarDeps {
  /** The base of the addresses handed out: PUBLIC_URL, else this host's. */
  publicUrl: string;
  /** The process's turns to build feed documents (calendar.routes.ts). */
  feedBuilds: Turns;
  /** FEED_MAX_WAIT_MS: how long a feed request may wait for its turn. */
  feedMaxWaitMs: number;
}

/** What the calendar module reads of the configuration. */
interface CalendarConfig {
  publicUrl: string | null;
  port: number;
  feedMaxWaitMs: number;
}

/** Builds the calendar's process dependencies from the configuration. */
export const calendarDeps = (setup: { config: CalendarConfig }): CalendarDeps => ({
  publicUrl: publicBaseUrl(setup.config),
  feedBuilds: new Turns(FEED_BUILDS_AT_ONCE),
  feedMaxWaitMs: setup.config.feedMaxWaitMs,
});

/** What the calendar's routes need of the app. */
interface CalendarRuntime {
  deps: Pick<CalendarDeps, 'feedBuilds' | 'feedMaxWaitMs'>;
  logger: Logger;
  createContext(request: RequestInfo): Promise<Context>;
}

/** The calendar documents over HTTP (calendar.routes.ts), at CALENDAR_PATH. */
export const calendarHttp = (runtime: CalendarRuntime): ModuleRoute[] => [
  {
    path: CALENDAR_PATH,
    handler: calendarRoutes({
      createContext: (request) => runtime.createContext(request),
      logger: runtime.logger,
      feedBuilds: runtime.deps.feedBuilds,
      feedMaxWaitMs: runtime.deps.feedMaxWaitMs,
    }),
  },
];
