/**
 * The line that bcrypt, sharp and the upload bodies wait in (p-limit, lib/cpu-bound.ts): at most `limit`
 * tasks at once, the rest in arrival order, failures release their slot.
 */
import pLimit from 'p-limit';

/** A task that runs until the test lets it finish. */
function controllable() {
  let finish!: (value: string) => void;
  let fail!: (error: Error) => void;
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  return { done, finish, fail };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('pLimit', () => {
  it('runs at most `limit` tasks at once and starts the waiting ones in arrival order', async () => {
    const limit = pLimit(2);
    const started: number[] = [];
    const tasks = [0, 1, 2, 3].map(() => controllable());
    const results = tasks.map((task, index) => limit(() => (started.push(index), task.done)));

    await settle();
    expect(started).toEqual([0, 1]);

    tasks[1].finish('b');
    await settle();
    expect(started).toEqual([0, 1, 2]);

    tasks[0].finish('a');
    tasks[2].finish('c');
    tasks[3].finish('d');
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c', 'd']);
    expect(started).toEqual([0, 1, 2, 3]);
  });

  it("gives a failed task's slot to the next one and passes the failure on", async () => {
    const limit = pLimit(1);
    const first = controllable();
    const second = controllable();
    const failed = limit(() => first.done);
    let secondStarted = false;
    const next = limit(() => ((secondStarted = true), second.done));

    await settle();
    expect(secondStarted).toBe(false);
    first.fail(new Error('hash failed'));
    await expect(failed).rejects.toThrow('hash failed');
    await settle();
    expect(secondStarted).toBe(true);
    second.finish('ok');
    await expect(next).resolves.toBe('ok');
  });

  it('lets a task start at once again when the line is empty', async () => {
    const limit = pLimit(1);
    await limit(async () => 'first');
    let started = false;
    const task = controllable();
    const run = limit(() => ((started = true), task.done));
    await settle();
    expect(started).toBe(true);
    task.finish('second');
    await expect(run).resolves.toBe('second');
  });
});
