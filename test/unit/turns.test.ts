import { Turns } from '../../src/platform/shared/turns';

/** A promise and the functions that settle it. */
function gate<T = void>() {
  let open!: (value: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/** Lets every settled promise's callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('turns', () => {
  it('runs no more tasks at once than its limit, the waiting ones first come first served', async () => {
    const turns = new Turns(2);
    const started: number[] = [];
    const gates = [0, 1, 2, 3].map(() => gate<number>());
    const results = gates.map((g, index) =>
      turns.run(() => {
        started.push(index);
        return g.promise;
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(turns.queued).toBe(2);

    gates[1]?.open(1);
    await settle();
    expect(started).toEqual([0, 1, 2]);
    expect(turns.queued).toBe(1);

    gates[0]?.open(0);
    gates[2]?.open(2);
    gates[3]?.open(3);
    await expect(Promise.all(results)).resolves.toEqual([0, 1, 2, 3]);
    expect(started).toEqual([0, 1, 2, 3]);
    expect(turns.queued).toBe(0);
  });

  it('passes a failed task its error and gives its turn to the next', async () => {
    const turns = new Turns(1);
    const first = gate();
    const failed = turns.run(() => first.promise);
    const next = turns.run(() => Promise.resolve('next ran'));
    await settle();
    expect(turns.queued).toBe(1);
    first.fail(new Error('build failed'));
    await expect(failed).rejects.toThrow('build failed');
    await expect(next).resolves.toBe('next ran');
  });

  it('starts a task at once while a turn is free', async () => {
    const turns = new Turns(1);
    await expect(turns.run(() => Promise.resolve(1))).resolves.toBe(1);
    await expect(turns.run(() => Promise.resolve(2))).resolves.toBe(2);
    expect(turns.queued).toBe(0);
  });

  it('refuses a task whose turn has not come within its longest wait, and runs the next in line', async () => {
    const turns = new Turns(1);
    const first = gate();
    const running = turns.run(() => first.promise);
    let ran = false;
    const shed = turns.run(async () => {
      ran = true;
    }, 30);
    const next = turns.run(() => Promise.resolve('next ran'));
    await expect(shed).rejects.toMatchObject({
      retryAfterSeconds: 1,
      reason: 'SERVICE_UNAVAILABLE',
    });
    expect(ran).toBe(false);
    expect(turns.queued).toBe(1);
    first.open();
    await running;
    await expect(next).resolves.toBe('next ran');
    expect(ran).toBe(false);
  });

  it('refuses a limit below one', () => {
    expect(() => new Turns(0)).toThrow(RangeError);
    expect(() => new Turns(1.5)).toThrow(RangeError);
  });
});
