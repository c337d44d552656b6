import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ServiceUnavailableError } from '../shared/errors';
import { sendHttpError } from './http-errors';

/** Where the health routes are mounted (also under the REST prefix). */
export const HEALTH_PATH = '/health';

/** Liveness (the process answers) and readiness (the database answers too), under HEALTH_PATH. */
export function healthRoutes(orm: MikroORM, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/liveness', (_req, res) => {
    res.status(204).end();
  });
  router.get('/readiness', async (_req, res) => {
    if (isShuttingDown()) {
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
