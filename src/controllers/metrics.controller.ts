/**
 * GET /metrics: this app's metrics and the process's, in Prometheus' text format. With a token
 * configured (METRICS_TOKEN), only a scraper that presents it gets them: the route templates, error
 * rates and pool sizes say a lot about an instance to whoever can reach it.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import { AuthenticationError } from '../errors/http-errors';
import type { AppMetrics } from '../lib/metrics';

export interface MetricsControllerDeps {
  metrics: AppMetrics;
  /** The bearer token a scrape must present; none asked when absent. */
  token?: string;
}

export function createMetricsController({ metrics, token }: MetricsControllerDeps) {
  const expected = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  return {
    async getMetrics(req: Request, res: Response) {
      if (expected && !sameSecret(Buffer.from(req.get('authorization') ?? ''), expected)) {
        res.set('WWW-Authenticate', 'Bearer realm="metrics"');
        throw new AuthenticationError('A valid metrics token is required', 'metrics_token_invalid');
      }
      const body = await metrics.scrape();
      res.set('Cache-Control', 'no-store').type(metrics.contentType).send(body);
    },
  };
}

/** Compares in time independent of where the first difference is (lengths may still differ quickly). */
function sameSecret(offered: Buffer, expected: Buffer): boolean {
  return offered.length === expected.length && timingSafeEqual(offered, expected);
}
