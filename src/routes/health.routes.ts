/** Probes at the root, outside /api/v1 and outside the rate limit: GET /healthz, GET /readyz. */
import { Router } from 'express';
import { createHealthController, type HealthControllerDeps } from '../controllers/health.controller';

export const HEALTH_PATHS = ['/healthz', '/readyz'] as const;

export function healthRoutes(deps: HealthControllerDeps): Router {
  const health = createHealthController(deps);
  const router = Router();
  router.get('/healthz', health.getHealth);
  router.get('/readyz', health.getReadiness);
  return router;
}
