/**
 * A bound on how many of one kind of task run at once; the others wait their turn, first come first
 * served. Used for password hashing: bcrypt runs on libuv's thread pool, off the event loop, but on as
 * many cores as the pool has threads, and a burst of logins would take every core from the requests
 * (and, on a shared host, the database) that need only a little of one.
 */
import { availableParallelism } from 'node:os';

export type ConcurrencyLimit = <T>(task: () => Promise<T>) => Promise<T>;

export function createConcurrencyLimit(limit: number): ConcurrencyLimit {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (task) => {
    if (running < limit) running += 1;
    // a finishing task hands its slot straight to the next in line, so `running` stays as it is
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/** All cores but one for CPU-heavy background work, and at least one. */
export const cpuBoundConcurrency = () => Math.max(1, availableParallelism() - 1);
