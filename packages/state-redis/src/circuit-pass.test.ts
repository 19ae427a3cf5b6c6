import { describe, expect, it } from 'vitest';
import { CircuitPasses } from './circuit-pass.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('CircuitPasses', () => {
  it('gives each admitted call one pass, taken in the same turn', async () => {
    const passes = new CircuitPasses();
    passes.grant('web_fetch');
    passes.grant('web_fetch');
    await Promise.resolve();
    expect(passes.take('web_fetch')).toBe(true);
    expect(passes.take('web_fetch')).toBe(true);
    expect(passes.take('web_fetch')).toBe(false);
    expect(passes.take('other')).toBe(false);
  });

  it('never lets a pass outlive its turn, nor survive a failure recorded since', async () => {
    const passes = new CircuitPasses();
    passes.grant('web_fetch');
    await nextTurn();
    // A later call (a retry, or a limiter used without a breaker) must ask Redis.
    expect(passes.take('web_fetch')).toBe(false);
    passes.grant('web_fetch');
    passes.drop('web_fetch');
    expect(passes.take('web_fetch')).toBe(false);
    // Passes granted after the clearing turn are cleared at the end of their own.
    passes.grant('web_fetch');
    await nextTurn();
    passes.grant('other');
    expect(passes.take('web_fetch')).toBe(false);
    expect(passes.take('other')).toBe(true);
  });
});
