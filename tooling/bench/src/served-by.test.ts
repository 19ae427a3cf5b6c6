import { describe, expect, it } from 'vitest';
import { ServedBy } from './served-by.js';

function answered(server?: string): Response {
  return new Response(null, { headers: server ? { 'x-served-by': server } : {} });
}

describe('ServedBy', () => {
  it('counts the replica HAProxy names in each response, by name', () => {
    const served = new ServedBy();
    for (const server of ['replica2', 'replica1', 'replica2', undefined]) {
      served.record(answered(server));
    }
    expect(served.counts()).toEqual({ replica1: 1, replica2: 2, unknown: 1 });
  });

  it('reads 1 for an even spread and the least share otherwise', () => {
    const served = new ServedBy();
    for (let index = 0; index < 9; index += 1) served.record(answered(`replica${index % 3}`));
    expect(served.evenness(3)).toBe(1);
    served.reset();
    for (const [server, count] of [
      ['replica0', 6],
      ['replica1', 2],
      ['replica2', 4],
    ] as const) {
      for (let index = 0; index < count; index += 1) served.record(answered(server));
    }
    // 12 calls, 4 is an even share: the least served replica has half of it.
    expect(served.evenness(3)).toBe(0.5);
  });

  it('reads 0 when a replica served nothing (sticky) or no response named one', () => {
    const sticky = new ServedBy();
    for (let index = 0; index < 6; index += 1) sticky.record(answered(`replica${index % 2}`));
    expect(sticky.evenness(3)).toBe(0);
    const anonymous = new ServedBy();
    for (let index = 0; index < 6; index += 1) anonymous.record(answered());
    expect(anonymous.evenness(3)).toBe(0);
    expect(new ServedBy().evenness(3)).toBe(0);
  });
});
