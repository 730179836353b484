/** GET /metrics at the app's root, like the probes: outside /api/v1 and outside the rate limit. */
import { Router } from 'express';
import { createMetricsController, type MetricsControllerDeps } from '../controllers/metrics.controller';

export const METRICS_PATH = '/metrics';

export function metricsRoutes(deps: MetricsControllerDeps): Router {
  const metrics = createMetricsController(deps);
  const router = Router();
  router.get(METRICS_PATH, metrics.getMetrics);
  return router;
}
