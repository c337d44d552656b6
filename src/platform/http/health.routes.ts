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
 * process is about to exit and only a restart of it helps.
 */
export function healthRoutes(
  orm: MikroORM,
  isShuttingDown: () => boolean,
  databaseHealth: () => EmbeddedHealth = () => 'up',
): Router {
  const router = Router();
  router.get('/liveness', (_req, res) => {
    if (databaseHealth() === 'failed') {
      sendHttpError(res, new ServiceUnavailableError());
      return;
    }
    res.status(204).end();
  });
  router.get('/readiness', async (_req, res) => {
    if (isShuttingDown() || databaseHealth() !== 'up') {
      sendHttpError(res, new ServiceUnavailableError());
      return;
    }
    const check = await orm.checkConnection().catch(() => ({ ok: false }));
    if (check.ok) {
      res.status(204).end();
    } else {
      sendHttpError(res, new ServiceUnavailableError());
    }
  });
  return router;
}
