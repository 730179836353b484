/**
 * Counters repaired soon after a failed write, by the instance that saw it (docs/failure-behaviour.md,
 * "Counters that heal"). A like or comment and its counter's `$inc` are two writes: when the database
 * goes away between them, or answers neither, the counter may be off by one. The engagement service
 * names such a blog here; until the blog is settled, every INTERVAL_MS this recounts its records and sets
 * each counter that differs only if it has not moved meanwhile (reconciliation.service.ts,
 * `repairBlogCounters`), so a like counted elsewhere in between is never lost.
 *
 * A blog is let go only when a check finds its counters equal to its records, and after a fix only once
 * `settleMs` (the operation deadline) has passed: a record written elsewhere between the count and the
 * set, whose `$inc` lands after it, leaves the counter one over, and that write has ended by then, so the
 * next check sees and repairs it. While the database is still away a check fails and is tried again.
 * At most MAX_BLOGS blogs wait; beyond that, and for a blog still unsettled after MAX_CHECKS checks, the
 * hourly reconciliation remains.
 */
import type { Logger } from '../lib/logger';
import { repairBlogCounters } from './reconciliation.service';

const INTERVAL_MS = 5_000;
const MAX_BLOGS = 10_000;
const MAX_CHECKS = 50;

export interface CounterRepairOptions {
  logger: Logger;
  /** How long after a fix a write in flight at that moment has surely ended: the operation deadline. */
  settleMs: number;
  /** For tests: how often the waiting blogs are checked. */
  intervalMs?: number;
}

interface Waiting {
  /** When the next check may run. */
  dueAt: number;
  checks: number;
}

export function createCounterRepair({ logger, settleMs, intervalMs = INTERVAL_MS }: CounterRepairOptions) {
  const waiting = new Map<string, Waiting>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  let overflowWarned = false;

  /** A write on this blog failed between a record and its counter: its counters may be off. */
  function suspect(blogId: unknown): void {
    const id = String(blogId);
    if (waiting.has(id) || stopped) return;
    if (waiting.size >= MAX_BLOGS) {
      if (!overflowWarned)
        logger.warn(`counter repair: ${MAX_BLOGS} blogs waiting; more are left to the reconciliation`);
      overflowWarned = true;
      return;
    }
    waiting.set(id, { dueAt: Date.now(), checks: 0 });
    schedule();
  }

  function schedule(): void {
    if (timer || stopped || waiting.size === 0) return;
    timer = setTimeout(() => {
      timer = undefined;
      void repairNow().finally(schedule);
    }, intervalMs);
    timer.unref();
  }

  async function checkDue(): Promise<void> {
    for (const [id, blog] of waiting) {
      if (blog.dueAt > Date.now()) continue;
      // throws while the database is away: this blog and the rest wait for the next round
      const { fixes, consistent } = await repairBlogCounters(id);
      for (const fix of fixes)
        logger.warn(`counter repair: blog ${id} ${fix.counter} was ${fix.from}, records say ${fix.to}: fixed`);
      blog.checks += 1;
      if (consistent) waiting.delete(id);
      else if (blog.checks >= MAX_CHECKS) {
        waiting.delete(id);
        logger.warn(`counter repair: blog ${id} still moving after ${MAX_CHECKS} checks; left to the reconciliation`);
      } else blog.dueAt = Date.now() + settleMs;
    }
    if (waiting.size < MAX_BLOGS) overflowWarned = false;
  }

  /** One round over the blogs due now (what the timer runs); never throws. */
  function repairNow(): Promise<void> {
    running ??= checkDue()
      .catch((error: unknown) => {
        logger.info('counter repair: the database is not answering yet; trying again', {
          error: error instanceof Error ? error.message : String(error),
        });
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    suspect,
    repairNow,
    /** How many blogs wait for a check. */
    waiting: () => waiting.size,
    stop(): void {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

export type CounterRepair = ReturnType<typeof createCounterRepair>;
