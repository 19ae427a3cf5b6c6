import { setMaxListeners } from 'node:events';
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernHttpTransport,
} from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * An MCP client connected over Streamable HTTP, as the benches drive servers. The SDK's transport
 * passes one long-lived abort signal to every request, and Node's fetch keeps a listener on it per
 * request until that request is collected: thousands of calls pass the default limit of listeners
 * and Node warns of a leak that is the client's, not the server's under test. The limit is lifted
 * for that signal only.
 */
export async function connectHttpClient(url: string): Promise<Client> {
  const client = new Client({ name: 'toolsys-bench', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      if (init?.signal) setMaxListeners(0, init.signal);
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  return client;
}

/**
 * An MCP client of the v2 SDK pinned to the 2026-07-28 protocol (stateless: every request carries
 * its envelope; no `initialize`, no session), connected over Streamable HTTP. `onResponse` sees
 * every HTTP response it reads (e.g. to count which replica answered).
 */
export async function connectModernHttpClient(
  url: string,
  onResponse?: (response: Response) => void,
): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'toolsys-bench', version: '0.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new ModernHttpTransport(new URL(url), {
    fetch: async (input, init) => {
      if (init?.signal) setMaxListeners(0, init.signal);
      const response = await fetch(input, init);
      onResponse?.(response);
      return response;
    },
  });
  await client.connect(transport);
  return client;
}
