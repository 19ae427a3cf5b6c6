// `toolsys mcp login <server>`: the authorization-code flow with PKCE, its redirect received on a
// loopback port of 127.0.0.1. The URL is printed, and opened in a browser where one exists.
import {
  LoopbackRedirect,
  type McpServerConfig,
  oauthStoreOf,
  signInToServer,
  stripTerminalControls,
} from '@toolsys/mcp-client';
import { openBrowser } from './open-browser.js';
import type { CliIo } from './types.js';
import { UsageError } from './types.js';

/** Options of {@link loginToServer}. */
export interface LoginOptions {
  readonly dataDir: string;
  readonly principal: string;
  /** Loopback port (for a client registered with an exact redirect URI); default: a free one. */
  readonly port?: number;
  /** How long to wait for the sign-in, in ms. */
  readonly timeoutMs: number;
  /** Whether to try to open a browser. */
  readonly browser: boolean;
  readonly json: boolean;
}

/** Signs `principal` in to `server`; resolves to the exit code. */
export async function loginToServer(
  server: McpServerConfig,
  io: CliIo,
  options: LoginOptions,
): Promise<number> {
  if (server.transport === 'stdio') {
    throw new UsageError(`MCP server "${server.name}" is a local program: it needs no sign-in.`);
  }
  const port = options.port ?? server.oauth?.redirectPort;
  const redirect = await LoopbackRedirect.start({
    ...(port === undefined ? {} : { port }),
    timeoutMs: options.timeoutMs,
    show: (authorizationUrl) => {
      const opened = options.browser && openBrowser(authorizationUrl.href, io.env);
      io.stderr.write(
        `To sign in to MCP server "${server.name}", open this URL${opened ? ' (a browser was opened)' : ''}:\n\n  ${authorizationUrl.href}\n\nWaiting up to ${Math.round(options.timeoutMs / 1000)} s for the sign-in to finish…\n`,
      );
    },
  });
  try {
    const { tools, signedIn } = await signInToServer(server, {
      store: oauthStoreOf(options.dataDir, options.principal, server.name),
      interactive: { authorize: redirect.authorize, redirectUrl: redirect.redirectUrl },
      // The wait for the browser ends first, with its own message.
      timeoutMs: options.timeoutMs + 10_000,
    });
    if (options.json) {
      io.stdout.write(
        `${JSON.stringify({ server: server.name, signedIn, tools: tools.length })}\n`,
      );
    } else {
      io.stdout.write(
        signedIn
          ? `Signed in to MCP server "${server.name}"; it lists ${tools.length} tool(s).\n`
          : `MCP server "${server.name}" needs no sign-in; it lists ${tools.length} tool(s).\n`,
      );
    }
    return 0;
  } catch (error) {
    io.stderr.write(
      `Sign-in to MCP server "${server.name}" failed: ${stripTerminalControls((error as Error).message)}\n`,
    );
    return 1;
  } finally {
    await redirect.close();
  }
}
