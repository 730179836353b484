/**
 * The request a piece of code is running for, without passing it down every call:
 * the request logger opens a context per request, and every log line written inside it
 * (controllers, services, the rate limiter's store errors, the error handler) carries its id.
 * The context also holds the request's read deadline (models/read-deadline.ts), made by its first read.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { setMaxListeners } from 'node:events';

export interface RequestContext {
  requestId: string;
  /** The signal that ends the request's reads, and its timer; made by the first read that asks. */
  readDeadline?: { signal: AbortSignal; timer: NodeJS.Timeout };
  /** Set when the request has been answered (endRequestContext). */
  ended?: boolean;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The id of the request being served, or undefined outside any request (start-up, shutdown). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

/** A signal aborted with `reason()` once `ms` have passed, and its timer. */
function deadline(ms: number, reason: () => Error): { signal: AbortSignal; timer: NodeJS.Timeout } {
  const controller = new AbortController();
  // each read in flight listens to it (a search runs four): no leak for Node to warn about
  setMaxListeners(100, controller.signal);
  // the error is made only when the deadline passes: an Error's stack trace costs more than the timer
  const timer = setTimeout(() => controller.abort(reason()), ms).unref();
  return { signal: controller.signal, timer };
}

/**
 * The signal that aborts, with `reason()`, the reads of the request being served once `ms` have passed
 * since the last of them began; undefined outside any request. One timer a request, re-armed by each
 * read, not one a read: every read still gets `ms` from its start, however long the request spent on
 * other work before it (an upload), and a read begun once the signal has fired gets a new one.
 * Work a request left running once it was answered (a counter's repair, whose timers carry the request's
 * context for ever after) gets a signal of its own at each read.
 */
export function requestReadSignal(ms: number, reason: () => Error): AbortSignal | undefined {
  const context = storage.getStore();
  if (!context) return undefined;
  if (context.ended) return deadline(ms, reason).signal;
  const current = context.readDeadline;
  if (current && !current.signal.aborted) {
    current.timer.refresh();
    return current.signal;
  }
  context.readDeadline = deadline(ms, reason);
  return context.readDeadline.signal;
}

/** The request has been answered: its read deadline's timer goes. */
export function endRequestContext(context: RequestContext): void {
  if (context.readDeadline) clearTimeout(context.readDeadline.timer);
  context.readDeadline = undefined;
  context.ended = true;
}
