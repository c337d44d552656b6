import { Router } from 'express';
import type { MikroORM } from '@mikro-orm/postgresql';
import { sendError } from './http-errors';

/** Liveness (the process answers) and readiness (the database answers too). */
export function healthRoutes(orm: MikroORM, isShuttingDown: () => boolean): Router {
  const router = Router();
  router.get('/health/liveness', (_req, res) => {
    res.status(204).end();
  });
  router.get('/health/readiness', async (_req, res) => {
    if (isShuttingDown()) {
      sendError(res, 503, 'SERVICE_UNAVAILABLE');
      return;
    }
    const check = await orm.checkConnection().catch(() => ({ ok: false }));
    if (check.ok) {
      res.status(204).end();
    } else {
      sendError(res, 503, 'SERVICE_UNAVAILABLE');
    }
  });
  return router;
}
