/**
 * A request's reads get a shorter deadline than its writes (docs/failure-behaviour.md, "A silent
 * partition"). A read sent on a pooled connection that a silent partition has already killed would wait
 * for the whole operation deadline (10 s); the driver interrupts it once its server check fails, but then
 * retries it and waits for a server again. Ending a read early is always safe: it changed nothing. Writes
 * keep the full deadline, so that a slow write is never given up on while it may still be applied; they
 * are ended only by the driver's interrupt, when the server is known to be gone.
 *
 * Every model applies it (`schema.plugin(readDeadline)`); tests/database-outage.test.ts checks that.
 * Outside a request (start-up, maintenance, `npm run reconcile`) reads keep the full deadline.
 */
import { mongo, type Aggregate, type Query, type Schema } from 'mongoose';
import { requestReadTimeoutMs } from '../lib/database';
import { requestReadSignal } from '../lib/request-context';

const READ_OPERATIONS: Array<'find' | 'findOne' | 'countDocuments' | 'estimatedDocumentCount' | 'distinct'> = [
  'find',
  'findOne',
  'countDocuments',
  'estimatedDocumentCount',
  'distinct',
];

export interface DeadlineOptions {
  timeoutMS?: number;
  signal?: AbortSignal;
}

/**
 * The options that hold a read made now to the request's deadline, none outside a request. `timeoutMS`
 * ends each stage, and the server's work too (maxTimeMS); the signal also ends the wait for a server of
 * the driver's retry, which ignores timeoutMS (mongodb 6.20 selects again with serverSelectionTimeoutMS
 * alone). The signal is the request's, shared by its reads (lib/request-context.ts); its reason is the
 * driver's own timeout error, so that the error handler answers 503.
 */
export function requestReadDeadline(): DeadlineOptions | undefined {
  const timeoutMS = requestReadTimeoutMs();
  const signal = requestReadSignal(
    timeoutMS,
    () => new mongo.MongoOperationTimeoutError(`read deadline of ${timeoutMS} ms exceeded`),
  );
  return signal && { timeoutMS, signal };
}

/** A deadline the caller chose stays. */
function withDeadline(options: DeadlineOptions): DeadlineOptions | undefined {
  return options.timeoutMS === undefined && options.signal === undefined ? requestReadDeadline() : undefined;
}

export function readDeadline(schema: Schema): void {
  schema.pre(READ_OPERATIONS, function (this: Query<unknown, unknown>) {
    const deadline = withDeadline(this.getOptions() as DeadlineOptions);
    if (deadline) this.setOptions(deadline as never);
  });
  schema.pre('aggregate', function (this: Aggregate<unknown>) {
    const deadline = withDeadline(this.options as DeadlineOptions);
    if (deadline) Object.assign(this.options, deadline);
  });
}

/** Whether a model's schema carries the plugin (for the test that every model does). */
export function hasReadDeadline(schema: Schema): boolean {
  return (schema as unknown as { plugins: Array<{ fn: unknown }> }).plugins.some(
    (plugin) => plugin.fn === readDeadline,
  );
}
