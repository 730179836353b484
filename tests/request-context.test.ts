/**
 * The read deadline of a request (lib/request-context.ts): one signal for the reads of a request, made
 * by the first, re-armed by each, aborted with the given reason when the last read's time is up, its
 * timer gone once the request has been answered. Timers are Jest's fake ones: the test reads the clock, it never waits on it.
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

it("shares one signal among a request's reads, aborted with the reason once their time is up", () => {
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

it('gives every read its whole time from its start, however long the request worked before it', () => {
  const context: RequestContext = { requestId: 'r3' };
  const first = runInRequestContext(context, () => requestReadSignal(4_000, reason));
  // an upload, say, between the authentication's read and the next
  jest.advanceTimersByTime(3_900);
  const second = runInRequestContext(context, () => requestReadSignal(4_000, reason));
  jest.advanceTimersByTime(3_999);
  const aliveUntilItsOwnEnd = !second!.aborted;
  jest.advanceTimersByTime(1);

  expect(second).toBe(first);
  expect(aliveUntilItsOwnEnd).toBe(true);
  expect(second!.aborted).toBe(true);
  const afterIt = runInRequestContext(context, () => requestReadSignal(4_000, reason));
  expect(afterIt).not.toBe(second);
  expect(afterIt!.aborted).toBe(false);
});

it('keeps requests apart: each has a signal of its own', () => {
  const one = runInRequestContext({ requestId: 'a' }, () => requestReadSignal(4_000, reason));
  const other = runInRequestContext({ requestId: 'b' }, () => requestReadSignal(4_000, reason));

  expect(other).not.toBe(one);
});

it('clears the timer when the request ends, and gives work it left running a deadline a read', () => {
  const context: RequestContext = { requestId: 'r2' };
  const during = runInRequestContext(context, () => requestReadSignal(4_000, reason));

  endRequestContext(context);
  expect(jest.getTimerCount()).toBe(0);
  // a counter's repair, say: its timers keep the request's context long after the answer
  const first = runInRequestContext(context, () => requestReadSignal(4_000, reason));
  jest.advanceTimersByTime(4_000);
  const later = runInRequestContext(context, () => requestReadSignal(4_000, reason));

  expect(during!.aborted).toBe(false);
  expect(first).not.toBe(during);
  expect(first!.aborted).toBe(true);
  expect(later).not.toBe(first);
  expect(later!.aborted).toBe(false);
});
