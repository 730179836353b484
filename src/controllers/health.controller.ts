/**
 * GET /healthz and GET /readyz, for Docker, orchestrators and load balancers.
 *   healthz: the process is up and serving HTTP; no dependency is asked, so a database outage
 *            never makes an orchestrator restart healthy instances. Only the database watchdog can
 *            make it fail: when the connection is wedged beyond repair while the database answers
 *            others, a restart is the cure (src/lib/database-watchdog.ts).
 *   readyz:  this instance can serve requests now: every dependency answers within a short timeout,
 *            and shutdown has not begun (once it has, 503 tells load balancers to send traffic elsewhere).
 */
import type { Request, Response } from 'express';
import { settleWithin } from '../lib/timeout';

/** Answers whether one dependency responds; it may also throw or hang, which counts as down. */
export type ReadinessCheck = () => Promise<boolean>;

export interface HealthControllerDeps {
  /** Dependencies by name, as they appear in the readyz body (`mongodb`, `redis`). */
  readinessChecks: Readonly<Record<string, ReadinessCheck>>;
  isShuttingDown: () => boolean;
  /** False when this process cannot recover by itself and should be restarted (the database watchdog). */
  isLive?: () => boolean;
  /** A check slower than this counts as down: a probe must answer before the prober gives up. */
  checkTimeoutMs: number;
}

type CheckState = 'up' | 'down';

export function createHealthController({
  readinessChecks,
  isShuttingDown,
  isLive = () => true,
  checkTimeoutMs,
}: HealthControllerDeps) {
  async function runCheck(check: ReadinessCheck): Promise<CheckState> {
    try {
      return (await settleWithin(check(), checkTimeoutMs, false)) ? 'up' : 'down';
    } catch {
      return 'down';
    }
  }

  return {
    getHealth(_req: Request, res: Response) {
      res.set('Cache-Control', 'no-store');
      if (!isLive()) {
        res.status(503).json({ status: 'unhealthy', reason: 'database connection wedged; restart this instance' });
        return;
      }
      res.json({ status: 'ok' });
    },

    async getReadiness(_req: Request, res: Response) {
      res.set('Cache-Control', 'no-store');
      if (isShuttingDown()) {
        res.status(503).json({ status: 'unavailable', reason: 'shutting down', checks: {} });
        return;
      }
      const names = Object.keys(readinessChecks);
      const states = await Promise.all(names.map((name) => runCheck(readinessChecks[name])));
      const checks = Object.fromEntries(names.map((name, index) => [name, states[index]]));
      const ready = states.every((state) => state === 'up') && !isShuttingDown();
      res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'unavailable', checks });
    },
  };
}
