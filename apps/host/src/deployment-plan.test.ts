import { describe, expect, it } from 'vitest';
import { withSharedMemory } from './deployment-plan.js';

describe('withSharedMemory', () => {
  it('gives cs-mem the sharing of core memory when cs-mem does not say', () => {
    expect(withSharedMemory({ core: { memory: { shared: true } } })).toEqual({
      core: { memory: { shared: true } },
      'cs-mem': { shared: true },
    });
    expect(
      withSharedMemory({ core: { memory: { shared: true } }, 'cs-mem': { recordTraces: false } }),
    ).toMatchObject({ 'cs-mem': { recordTraces: false, shared: true } });
  });

  it('leaves cs-mem’s own setting, and a section it cannot read, as they are', () => {
    const own = { core: { memory: { shared: true } }, 'cs-mem': { shared: false } };
    expect(withSharedMemory(own)).toBe(own);
    const odd = { core: { memory: { shared: true } }, 'cs-mem': 'yes' };
    expect(withSharedMemory(odd)).toBe(odd);
    const unset = { core: {} };
    expect(withSharedMemory(unset)).toBe(unset);
  });
});
