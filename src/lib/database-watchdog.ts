/**
 * Never stay wedged: the MongoDB driver (6.20) can end up with a server monitor stuck for good after a
 * network cut (docs/failure-behaviour.md, "The driver's dead-socket wait"), so the server stays Unknown and every operation fails
 * server selection although the database is back. Waiting does not help, a new client does.
 *
 * Every `intervalMs` the watchdog pings through the application's connection. When that has failed for
 * longer than `unreachableMs` and a fresh client reaches the database, the connection is wedged: it is
 * thrown away and opened anew. If reopening does not bring it back (twice in a row), the watchdog
 * reports the process unhealthy, and GET /healthz answers 503 so the orchestrator restarts it.
 * When no fresh client gets through either, the database itself is down: nothing to repair here.
 */
import { freshConnectionSucceeds, pingDatabase, reopenDatabase } from './database';
import type { Logger } from './logger';
import { settleWithin } from './timeout';

export interface WatchdogOptions {
  intervalMs: number;
  unreachableMs: number;
  logger: Logger;
  /** For tests: how the connection, a fresh client and a reopen are tried (the real ones by default). */
  probes?: Partial<WatchdogProbes>;
  now?: () => number;
}

export interface WatchdogProbes {
  ping(): Promise<boolean>;
  fresh(): Promise<boolean>;
  reopen(): Promise<void>;
}

export interface DatabaseWatchdog {
  /** False once recovery failed: the process should be restarted (GET /healthz answers 503). */
  healthy(): boolean;
  /** One look (what the timer runs); exposed for tests. */
  check(): Promise<void>;
  /** How many times the connection was reopened. */
  readonly reopened: number;
  stop(): void;
}

const PROBE_DEADLINE_MS = 2_000;
const REOPEN_DEADLINE_MS = 15_000;
const FAILED_RECOVERIES_BEFORE_UNHEALTHY = 2;

export function startDatabaseWatchdog(options: WatchdogOptions): DatabaseWatchdog {
  const { intervalMs, unreachableMs, logger } = options;
  const now = options.now ?? Date.now;
  const probes: WatchdogProbes = {
    ping: () => pingDatabase(PROBE_DEADLINE_MS),
    fresh: () => freshConnectionSucceeds(PROBE_DEADLINE_MS),
    reopen: reopenDatabase,
    ...options.probes,
  };
  let lastReachable = now();
  let failedRecoveries = 0;
  let outageLogged = false;
  let running = false;
  let reopened = 0;

  async function check(): Promise<void> {
    if (running) return;
    running = true;
    try {
      if (await probes.ping()) {
        if (outageLogged || failedRecoveries > 0) logger.info('database: reachable again');
        lastReachable = now();
        failedRecoveries = 0;
        outageLogged = false;
        return;
      }
      const unreachableFor = now() - lastReachable;
      if (unreachableFor <= unreachableMs) return;
      if (!(await probes.fresh())) {
        if (!outageLogged)
          logger.warn(`database: unreachable for ${unreachableFor} ms, and a fresh connection fails too (outage)`);
        outageLogged = true;
        return;
      }
      // The database has just come back, perhaps: a healthy driver reconnects within a heartbeat, and a
      // ping now makes it look at once. Only a connection that still fails then is wedged.
      if (await probes.ping()) {
        lastReachable = now();
        outageLogged = false;
        return;
      }
      logger.warn(
        `database: unreachable through the connection for ${unreachableFor} ms while a fresh connection succeeds: reopening it`,
      );
      const outcome = await settleWithin(
        probes.reopen().then(
          () => 'reopened' as const,
          (error: unknown) => error,
        ),
        REOPEN_DEADLINE_MS,
        'timed out' as const,
      );
      reopened += 1;
      if (outcome === 'reopened' && (await probes.ping())) {
        logger.info('database: connection reopened and answering');
        lastReachable = now();
        failedRecoveries = 0;
        return;
      }
      failedRecoveries += 1;
      logger.error('database: reopening the connection did not bring it back', {
        attempt: failedRecoveries,
        outcome: outcome instanceof Error ? outcome.message : String(outcome),
      });
      if (failedRecoveries === FAILED_RECOVERIES_BEFORE_UNHEALTHY) {
        logger.error(
          'database: connection wedged beyond repair; /healthz now answers 503 so the instance is restarted',
        );
      }
    } catch (error) {
      logger.error('database watchdog failed', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      running = false;
    }
  }

  const timer = intervalMs > 0 ? setInterval(() => void check(), intervalMs) : undefined;
  timer?.unref();

  return {
    healthy: () => failedRecoveries < FAILED_RECOVERIES_BEFORE_UNHEALTHY,
    check,
    get reopened() {
      return reopened;
    },
    stop: () => clearInterval(timer),
  };
}
