import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EmbeddedHealth } from '../postgres/embedded/supervisor';
import { ServiceUnavailableError } from '../shared/errors';
import { sendHttpError } from './http-errors';

/** Where the health routes are mounted (also under the REST prefix). */
export const HEALTH_PATH = '/health';

/**
 * Liveness (the process can still serve) and readiness (the database answers too), under
 * HEALTH_PATH. `databaseHealth` is the embedded server's supervision: while it restarts the
 * server, readiness fails without asking the pool; once it gave up, liveness fails too, as the
 * process is about to exit and only a restart of it helps. Readiness answers 204 or 503 with no
 * body, for balancers; with `?detail`, 200 or 503 with `ready` and `detail()` in JSON, for people.
 */
export function healthRoutes(
  orm: MikroORM,
  isShuttingDown: () => boolean,
  databaseHealth: () => EmbeddedHealth = () => 'up',
  detail: () => Promise<object> = async () => ({}),
): Router {
  const router = Router();
  router.get('/liveness', (_req, res) => {
    if (databaseHealth() === 'failed') {
      sendHttpError(res, new ServiceUnavailableError());
      return;
    }
    res.status(204).end();
  });
  const ready = async (): Promise<boolean> => {
    if (isShuttingDown() || databaseHealth() !== 'up') {
      return false;
    }
    const check = await orm.checkConnection().catch(() => ({ ok: false }));
    return check.ok;
  };
  router.get('/readiness', async (req, res) => {
    const isReady = await ready();
    if (req.query['detail'] !== undefined) {
      res.status(isReady ? 200 : 503).json({ ready: isReady, ...(await detail()) });
    } else if (isReady) {
      res.status(204).end();
    } else {
      sendHttpError(res, new ServiceUnavailableError());
    }
  });
  return router;
}
