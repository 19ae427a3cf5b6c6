import { describe, expect, it } from 'vitest';
import { DeploymentKey } from '../deployment-key.js';
import { REQUEST_STATE_PURPOSE, requestStateVerifier } from './input-rounds.js';
import { createUsedStateIds } from './used-state-ids.js';

const STATE = { id: 's-1', tool: 't', call: 'c', owner: 'o', answers: {}, asked: ['input-0'] };

describe('createUsedStateIds without Redis', () => {
  it('grants an id once while it is valid, and again once it has expired', async () => {
    const used = createUsedStateIds(undefined);
    expect(await used.claim('a', 60_000)).toBe(true);
    expect(await used.claim('a', 60_000)).toBe(false);
    expect(await used.claim('b', 1)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await used.claim('b', 60_000)).toBe(true);
  });
});

describe('requestStateVerifier', () => {
  const key = DeploymentKey.generate();
  const verify = () => requestStateVerifier(async () => key, createUsedStateIds(undefined));

  it('opens a state sealed with the key, once', async () => {
    const check = verify();
    const sealed = key.seal(REQUEST_STATE_PURPOSE, STATE, 60_000);
    expect(await check(sealed)).toEqual(STATE);
    await expect(check(sealed)).rejects.toThrow('requestState replayed');
  });

  it('refuses a state of another key, another purpose, past its time or of another shape', async () => {
    const check = verify();
    const other = DeploymentKey.generate().seal(REQUEST_STATE_PURPOSE, STATE, 60_000);
    await expect(check(other)).rejects.toThrow('requestState tampered');
    const purpose = key.seal('audit', STATE, 60_000);
    await expect(check(purpose)).rejects.toThrow('requestState tampered');
    const old = key.seal(REQUEST_STATE_PURPOSE, STATE, 1_000, Date.now() - 10_000);
    await expect(check(old)).rejects.toThrow('requestState expired');
    const shapeless = key.seal(REQUEST_STATE_PURPOSE, { id: 1 }, 60_000);
    await expect(check(shapeless)).rejects.toThrow('requestState malformed');
  });
});
