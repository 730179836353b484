/** Waiting on something that may hang (a dependency's answer, connections draining) for a bounded time. */

/**
 * What `promise` settles to, or `fallback` once `ms` have passed without it. The timer is cleared
 * either way, so nothing keeps the process alive afterwards; a rejection of `promise` is passed on.
 */
export async function settleWithin<T, F>(promise: Promise<T>, ms: number, fallback: F): Promise<T | F> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<F>((resolve) => {
    timer = setTimeout(() => resolve(fallback), ms);
  });
  try {
    return await Promise.race([promise, timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
