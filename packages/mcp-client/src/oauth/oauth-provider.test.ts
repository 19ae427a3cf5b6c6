import { ToolError } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { McpOAuthProvider } from './oauth-provider.js';
import { MemoryOAuthStore } from './oauth-store.js';

function provider(now: () => number, store = new MemoryOAuthStore()) {
  return new McpOAuthProvider({
    server: 'remote',
    serverUrl: 'https://mcp.example.com/mcp',
    store,
    now,
  });
}

describe('McpOAuthProvider', () => {
  it('reads an access token near expiry as none for a request, so it is refreshed first', async () => {
    let clock = 1_000_000;
    const oauth = provider(() => clock);
    await oauth.saveTokens({
      access_token: 'a',
      token_type: 'Bearer',
      expires_in: 300,
      refresh_token: 'r',
    });
    expect((await oauth.tokens())?.access_token).toBe('a');
    clock += 250_000;
    expect(await oauth.tokens()).toBeUndefined();
    expect((await oauth.tokens({ issuer: 'https://as.example.com' }))?.refresh_token).toBe('r');
  });

  it('keeps the refresh token when a refresh issues none', async () => {
    const oauth = provider(() => 0);
    await oauth.saveTokens({ access_token: 'a', token_type: 'Bearer', refresh_token: 'r' });
    await oauth.saveTokens({ access_token: 'b', token_type: 'Bearer' });
    expect(await oauth.tokens()).toMatchObject({ access_token: 'b', refresh_token: 'r' });
  });

  it('without a browser step, names the login command instead of registering a client', async () => {
    const oauth = provider(() => 0);
    const failure = await oauth.clientInformation().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ToolError);
    expect((failure as ToolError).message).toBe(
      'MCP server "remote" needs sign-in: run `toolsys mcp login remote`.',
    );
    await expect(
      oauth.redirectToAuthorization(new URL('https://as.example.com/authorize')),
    ).rejects.toThrow('toolsys mcp login remote');
  });

  it('refuses a callback whose state is not the one sent, without redeeming its code', async () => {
    const oauth = new McpOAuthProvider({
      server: 'remote',
      serverUrl: 'https://mcp.example.com/mcp',
      store: new MemoryOAuthStore(),
      redirectUrl: 'http://127.0.0.1:9/callback',
      authorize: async () => new URLSearchParams({ code: 'c', state: 'forged' }),
    });
    oauth.state();
    await expect(
      oauth.redirectToAuthorization(new URL('https://as.example.com/authorize')),
    ).rejects.toThrow('does not carry the state that was sent');
    expect(oauth.takeFreshAuthorization()).toBe(false);
  });

  it('stops sending the user to sign in after the limit', async () => {
    let asked = 0;
    const oauth = new McpOAuthProvider({
      server: 'remote',
      serverUrl: 'https://mcp.example.com/mcp',
      store: new MemoryOAuthStore(),
      redirectUrl: 'http://127.0.0.1:9/callback',
      maxAuthorizations: 2,
      authorize: async () => {
        asked += 1;
        return new URLSearchParams({ error: 'access_denied', state: 'x' });
      },
    });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await oauth
        .redirectToAuthorization(new URL('https://as.example.com/authorize'))
        .catch(() => undefined);
    }
    expect(asked).toBe(2);
  });
});
