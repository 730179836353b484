/**
 * The read deadline of a request (lib/request-context.ts): one signal for all the reads of a request,
 * made by the first, aborted with the given reason when its time is up, its timer gone once the request
 * has been answered. Timers are Jest's fake ones: the test reads the clock, it never waits on it.
 */
import {
  endRequestContext,
  requestReadSignal,
  runInRequestContext,
  type RequestContext,
} from '../src/lib/request-context';

const reason = () => new Error('read deadline exceeded');

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('gives no signal outside a request: start-up and maintenance reads keep the full deadline', () => {
  expect(requestReadSignal(4_000, reason)).toBeUndefined();
});

it("shares one signal among a request's reads, aborted with the reason once the time from the first has passed", () => {
  const context: RequestContext = { requestId: 'r1' };
  const [first, second] = runInRequestContext(context, () => [
    requestReadSignal(4_000, reason),
    requestReadSignal(4_000, reason),
  ]);

  expect(second).toBe(first);
  jest.advanceTimersByTime(3_999);
  expect(first!.aborted).toBe(false);
  jest.advanceTimersByTime(1);
  expect(first!.aborted).toBe(true);
  expect((first!.reason as Error).message).toBe('read deadline exceeded');
});

it('keeps requests apart: each has a signal of its own', () => {
  const one = runInRequestContext({ requestId: 'a' }, () => requestReadSignal(4_000, reason));
  const other = runInRequestContext({ requestId: 'b' }, () => requestReadSignal(4_000, reason));

  expect(other).not.toBe(one);
});

it('clears the timer when the request ends, and gives work it left running a deadline of its own', () => {
  const context: RequestContext = { requestId: 'r2' };
  const during = runInRequestContext(context, () => requestReadSignal(4_000, reason));

  endRequestContext(context);
  expect(jest.getTimerCount()).toBe(0);
  const after = runInRequestContext(context, () => requestReadSignal(4_000, reason));
  jest.advanceTimersByTime(4_000);

  expect(during!.aborted).toBe(false);
  expect(after).not.toBe(during);
  expect(after!.aborted).toBe(true);
});
