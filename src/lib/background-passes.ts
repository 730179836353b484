/**
 * Work an instance repeats in the background (the publish scheduler, the webhook worker): one pass at
 * start, then every `intervalMs`; a slow pass is never overlapped by the next, a failed one is logged and
 * the next retries; `stop` waits for the pass under way.
 */
import type { Logger } from './logger';

export function backgroundPasses(runOnce: () => Promise<unknown>, intervalMs: number, logger: Logger, what: string) {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  const pass = () => {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) =>
        logger.error(`${what} pass failed; the next pass retries`, {
          error: error instanceof Error ? error.message : String(error),
        }),
      )
      .finally(() => (running = undefined));
  };
  return {
    start() {
      pass();
      timer = setInterval(pass, intervalMs);
      timer.unref();
    },
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
