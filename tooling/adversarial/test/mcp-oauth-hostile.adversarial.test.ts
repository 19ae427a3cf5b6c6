// Hostile servers on the way to an OAuth sign-in: each must end the sign-in with a refusal that
// says why, before any credential or code reaches where it should not.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { McpClient, McpOAuthProvider, MemoryOAuthStore } from '@toolsys/mcp-client';
import { listenOnLoopback } from '@toolsys/test-support';
import { afterEach, describe, expect, it } from 'vitest';

type Route = (request: IncomingMessage, response: ServerResponse, base: string) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((done) => server.close(done))));
});

/** A loopback HTTP server answering each path with its route; 404 elsewhere. */
async function serve(routes: (base: string) => Record<string, Route>): Promise<string> {
  let base = '';
  const server = createServer((request, response) => {
    const route = routes(base)[new URL(request.url ?? '/', base).pathname];
    if (route) route(request, response, base);
    else response.writeHead(404).end();
  });
  servers.push(server);
  base = `http://127.0.0.1:${await listenOnLoopback(server)}`;
  return base;
}

function json(body: unknown, status = 200): Route {
  return (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
}

/** An MCP endpoint that asks for a token, naming its resource metadata. */
const challenge: Route = (request, response, base) => {
  request.resume();
  response
    .writeHead(401, {
      'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
    })
    .end();
};

/** Authorization-server metadata of `issuer` with the given endpoints. */
function asMetadata(issuer: string, endpoints: Record<string, string> = {}) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    registration_endpoint: `${issuer}/register`,
    response_types_supported: ['code'],
    code_challenge_methods_supported: ['S256'],
    ...endpoints,
  };
}

/** Connects with an interactive provider whose browser step answers with `code` at once. */
async function signIn(url: string): Promise<{ error: unknown; asked: number }> {
  let asked = 0;
  const client = new McpClient(
    { name: 'hostile', transport: 'streamable-http', url },
    {
      oauth: () =>
        new McpOAuthProvider({
          server: 'hostile',
          serverUrl: url,
          store: new MemoryOAuthStore(),
          redirectUrl: 'http://127.0.0.1:9/callback',
          authorize: async (authorizationUrl) => {
            asked += 1;
            const state = authorizationUrl.searchParams.get('state') ?? '';
            return new URLSearchParams({ code: 'the-code', state });
          },
        }),
    },
  );
  const error = await client.connect({ timeoutMs: 10_000 }).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  await client.close();
  return { error, asked };
}

describe('hostile OAuth servers', () => {
  it('refuses authorization-server metadata that names another issuer', async () => {
    const as = await serve(() => ({
      '/.well-known/oauth-authorization-server': json(asMetadata('https://attacker.example.com')),
      '/.well-known/openid-configuration': json(asMetadata('https://attacker.example.com')),
      '/register': () => {
        throw new Error('registered with poisoned metadata');
      },
    }));
    const mcp = await serve((base) => ({
      '/mcp': challenge,
      '/.well-known/oauth-protected-resource/mcp': json({
        resource: `${base}/mcp`,
        authorization_servers: [as],
      }),
    }));
    const { error, asked } = await signIn(`${mcp}/mcp`);
    expect(asked).toBe(0);
    expect(String((error as Error).message)).toContain(
      'metadata names another issuer than the one it was fetched from',
    );
  });

  it('refuses protected-resource metadata for another resource', async () => {
    const as = await serve((base) => ({
      '/.well-known/oauth-authorization-server': json(asMetadata(base)),
    }));
    const mcp = await serve(() => ({
      '/mcp': challenge,
      '/.well-known/oauth-protected-resource/mcp': json({
        resource: 'https://other.example.com/mcp',
        authorization_servers: [as],
      }),
    }));
    const { error, asked } = await signIn(`${mcp}/mcp`);
    expect(asked).toBe(0);
    expect((error as Error).message).toContain('names another resource');
  });

  it('does not follow a metadata redirect to another origin', async () => {
    let reached = false;
    const elsewhere = await serve(() => ({
      '/prm': (_request, response) => {
        reached = true;
        response.writeHead(404).end();
      },
    }));
    const mcp = await serve(() => ({
      '/mcp': challenge,
      '/.well-known/oauth-protected-resource/mcp': (_request, response) => {
        response.writeHead(302, { location: `${elsewhere}/prm` }).end();
      },
    }));
    const { error, asked } = await signIn(`${mcp}/mcp`);
    expect(error).toBeDefined();
    expect(asked).toBe(0);
    expect(reached).toBe(false);
  });

  it('never sends the code to a token endpoint over http: off loopback', async () => {
    const as = await serve((base) => ({
      '/.well-known/oauth-authorization-server': json(
        asMetadata(base, { token_endpoint: 'http://tokens.example.com/token' }),
      ),
      '/register': json({ client_id: 'c1', redirect_uris: ['http://127.0.0.1:9/callback'] }, 201),
    }));
    const mcp = await serve((base) => ({
      '/mcp': challenge,
      '/.well-known/oauth-protected-resource/mcp': json({
        resource: `${base}/mcp`,
        authorization_servers: [as],
      }),
    }));
    const { error } = await signIn(`${mcp}/mcp`);
    expect((error as Error).message).toBe(
      'Sign-in to MCP server "hostile" was refused: its token endpoint is plain http: on a host that is not loopback (https is required).',
    );
  });
});
