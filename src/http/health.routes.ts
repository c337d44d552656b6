import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ServiceUnavailableError } from '../shared/errors';
import { sendHttpError } from './http-errors';

/** Liveness (the process answers) and readiness (the database answers too). */
export function healthRoutes(orm: MikroORM, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/health/liveness', (_req, res) => {
    res.status(204).end();
  });
  router.get('/health/readiness', async (_req, res) => {
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
