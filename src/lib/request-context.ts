/**
 * The request a piece of code is running for, without passing it down every call:
 * the request logger opens a context per request, and every log line written inside it
 * (controllers, services, the rate limiter's store errors, the error handler) carries its id.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function runInRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The id of the request being served, or undefined outside any request (start-up, shutdown). */
export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
