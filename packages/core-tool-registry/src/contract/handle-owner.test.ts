import { describe, expect, it } from 'vitest';
import {
  handleOwnerKey,
  handleOwnerOf,
  isHandleOwner,
  isKeyOfSession,
  principalKey,
} from './handle-owner.js';

const alice = { id: 'alice', kind: 'token', scopes: [] } as const;
const aliceOAuth = { id: 'alice', kind: 'oauth', scopes: [] } as const;

describe('handle owners', () => {
  it('names a principal by kind and id, and a call without one as the local user', () => {
    expect(principalKey(alice)).toBe('token:alice');
    expect(principalKey(aliceOAuth)).not.toBe(principalKey(alice));
    expect(principalKey(undefined)).toBe('local:local');
  });

  it('lets only the same principal in the same client session use a handle', () => {
    const owner = handleOwnerOf({ principal: alice, sessionId: 's1' });
    expect(isHandleOwner(owner, handleOwnerOf({ principal: alice, sessionId: 's1' }))).toBe(true);
    expect(isHandleOwner(owner, handleOwnerOf({ principal: aliceOAuth, sessionId: 's1' }))).toBe(
      false,
    );
    expect(isHandleOwner(owner, handleOwnerOf({ principal: alice, sessionId: 's2' }))).toBe(false);
  });

  it('keys owners so that a client session’s end finds exactly its own', () => {
    const key = handleOwnerKey(handleOwnerOf({ principal: alice, sessionId: 's1' }));
    expect(isKeyOfSession(key, 's1')).toBe(true);
    expect(isKeyOfSession(key, 's')).toBe(false);
    expect(isKeyOfSession(key, 's1x')).toBe(false);
  });
});
