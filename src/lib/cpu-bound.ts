/**
 * A bound on CPU-heavy work (password hashing, image re-encoding): all cores but one, and at least one;
 * the other tasks wait their turn, first come first served (p-limit). bcrypt and sharp run on libuv's
 * thread pool, off the event loop, but on as many cores as the pool has threads, and a burst of logins
 * or uploads would take every core from the requests (and, on a shared host, the database) that need
 * only a little of one.
 */
import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';

export const cpuBoundLimit = () => pLimit(Math.max(1, availableParallelism() - 1));
