import { describe, expect, it } from 'vitest';
import { FairSlots } from './fair-slots.js';

const never = new AbortController().signal;

describe('FairSlots', () => {
  it('lets one caller hold at most its share, so another caller gets a slot at once', async () => {
    const slots = new FairSlots({ slots: 2 });
    const first = await slots.acquire('greedy', 'calculate', never);
    const order: string[] = [];
    const second = slots.acquire('greedy', 'calculate', never).then((release) => {
      order.push('greedy');
      return release;
    });
    const third = slots.acquire('greedy', 'calculate', never).then((release) => {
      order.push('greedy');
      return release;
    });
    const other = await slots.acquire('other', 'calculate', never);
    order.push('other');
    expect(slots.busy).toBe(2);
    expect(slots.queued).toBe(2);
    other();
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(['other', 'greedy', 'greedy']);
  });

  it('serves waiting callers round-robin', async () => {
    const slots = new FairSlots({ slots: 1 });
    const hold = await slots.acquire('a', 't', never);
    const served: string[] = [];
    const waits = [
      ...['a', 'a', 'a'].map((caller) => slots.acquire(caller, 't', never)),
      slots.acquire('b', 't', never),
    ].map((pending, index) =>
      pending.then((release) => {
        served.push(index === 3 ? 'b' : 'a');
        release();
      }),
    );
    hold();
    await Promise.all(waits);
    expect(served).toEqual(['a', 'b', 'a', 'a']);
  });

  it('refuses a call past the caller’s waiting list with RATE_LIMITED', async () => {
    const slots = new FairSlots({ slots: 1, queuedPerCaller: 1 });
    await slots.acquire('a', 'calculate', never);
    void slots.acquire('a', 'calculate', never);
    await expect(slots.acquire('a', 'calculate', never)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      message: 'calculate: this session already has 1 computation(s) running and 1 waiting',
    });
  });

  it('drops a waiting call whose signal fires', async () => {
    const slots = new FairSlots({ slots: 1 });
    const hold = await slots.acquire('a', 't', never);
    const stop = new AbortController();
    const waiting = slots.acquire('b', 't', stop.signal);
    stop.abort(new Error('time limit'));
    await expect(waiting).rejects.toThrow('time limit');
    expect(slots.queued).toBe(0);
    hold();
    expect(slots.busy).toBe(0);
  });
});
