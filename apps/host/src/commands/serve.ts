import type { DeploymentConfig } from '../config.js';
import { scopedConfirm } from '../server/call-scope.js';
import {
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_IDLE_MS,
  MCP_PATH,
} from '../server/http-defaults.js';
import type { HttpServeOptions, HttpServer } from '../server/http-server.js';
import type { OAuthResource } from '../server/oauth-resource.js';
import { ToolHost } from '../server/tool-host.js';
import { commandInfo } from './catalog.js';
import { openDeployment, splitArgs } from './shared.js';
import { type CliCommand, UsageError } from './types.js';

/** The environment variable holding the HTTP bearer token unless the config names another. */
export const DEFAULT_TOKEN_ENV = 'TOOLSYS_TOKEN';

function parsePort(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, got "${text}".`);
  }
  return port;
}

/**
 * How long `serve` waits for the packages' probes before it answers clients, in ms. MCP clients
 * start their servers at launch and give up after a few seconds; a probe slower than this (adb
 * on a busy machine, an Appium URL that does not answer) registers its package later, announced
 * with `tools/list_changed`.
 */
export const SERVE_DETECTION_BOUND_MS = 500;

/** How often a server checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1_000;

/**
 * Resolves when the process is asked to stop (SIGINT, SIGTERM, SIGHUP) or when the process that
 * started it is gone: `pnpm start` killed with SIGTERM does not pass the signal on, and a server
 * must not outlive its launcher, holding the port and its child processes.
 */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid !== parent) stop();
    }, PARENT_CHECK_MS);
    watch.unref();
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    function stop() {
      clearInterval(watch);
      for (const signal of signals) process.off(signal, stop);
      resolve();
    }
    for (const signal of signals) process.once(signal, stop);
  });
}

/** `toolsys serve --stdio | --http`: the deployment as an MCP server (and the dashboard). */
export const serveCommand: CliCommand = {
  ...commandInfo('serve'),
  async run(args, io) {
    const { flags, values, positionals } = splitArgs(args, {
      booleans: ['stdio', 'http'],
      values: ['host', 'port', 'token-env', 'config'],
    });
    if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`);
    if (flags.has('stdio') === flags.has('http')) {
      throw new UsageError('Choose one transport: --stdio or --http.');
    }
    const port = parsePort(values.get('port'));
    // The server's own modules load while the packages' probes run, not after them.
    const stdioServer = flags.has('stdio') ? import('../server/stdio-server.js') : undefined;
    stdioServer?.catch(() => undefined);
    const deployment = await openDeployment(io, {
      configPath: values.get('config'),
      confirm: scopedConfirm,
      detectionBoundMs: SERVE_DETECTION_BOUND_MS,
    });
    const host = new ToolHost(deployment);
    try {
      if (flags.has('stdio')) {
        // stdout carries JSON-RPC; everything for people goes to stderr.
        // Each transport loads only its own server code: stdio never pays for HTTP, the
        // dashboard or the Streamable HTTP transport.
        const { serveStdio } = await (stdioServer ?? import('../server/stdio-server.js'));
        const server = await serveStdio(host);
        io.stderr.write(`toolsys: serving ${deployment.registry.size} tools over stdio\n`);
        await Promise.race([server.closed, untilStopped()]);
        await server.close();
        return 0;
      }
      const serverConfig = deployment.config.config.server ?? {};
      const tokenEnv = values.get('token-env') ?? serverConfig.tokenEnv ?? DEFAULT_TOKEN_ENV;
      const token = io.env[tokenEnv];
      // The server's bearer token is its own: read once, then gone from the environment that
      // commands, shells and servers it starts could inherit, whatever the variable is called.
      delete io.env[tokenEnv];
      const tokens = (serverConfig.tokens ?? []).map((entry) => {
        const secret = io.env[entry.tokenEnv];
        delete io.env[entry.tokenEnv];
        if (!secret) {
          throw new UsageError(
            `server.tokens: the token "${entry.name}" reads $${entry.tokenEnv}, which is not set. Set it, or remove the entry.`,
          );
        }
        return {
          name: entry.name,
          token: secret,
          ...(entry.scopes ? { scopes: entry.scopes } : {}),
        };
      });
      const auth = serverConfig.auth
        ? await oauthResource(serverConfig.auth, serverConfig.publicUrl, io.env)
        : undefined;
      const http = await startHttp(host, {
        ...(auth ? { auth } : {}),
        ...(tokens.length > 0 ? { tokens } : {}),
        publicUrl: serverConfig.publicUrl,
        dashboardClientId: serverConfig.auth?.dashboardClientId,
        host: values.get('host') ?? serverConfig.host ?? DEFAULT_HTTP_HOST,
        port: port ?? serverConfig.port ?? DEFAULT_HTTP_PORT,
        token,
        allowedOrigins: serverConfig.allowedOrigins ?? [],
        allowedHosts: serverConfig.allowedHosts ?? [],
        maxSessions: serverConfig.maxSessions ?? DEFAULT_MAX_SESSIONS,
        sessionIdleMs:
          serverConfig.sessionIdleSeconds !== undefined
            ? serverConfig.sessionIdleSeconds * 1000
            : DEFAULT_SESSION_IDLE_MS,
      });
      io.stdout.write(
        [
          `toolsys: serving ${deployment.registry.size} tools`,
          `  MCP (Streamable HTTP): ${http.mcpUrl}`,
          `  Dashboard:             ${http.dashboardUrl}`,
          '',
        ].join('\n'),
      );
      await untilStopped();
      await http.close();
      return 0;
    } finally {
      await deployment.close();
    }
  },
};

/** The OAuth protected resource a config's `server.auth` describes; a bad URL is a usage error. */
async function oauthResource(
  auth: NonNullable<NonNullable<DeploymentConfig['server']>['auth']>,
  publicUrl: string | undefined,
  env: NodeJS.ProcessEnv,
): Promise<OAuthResource> {
  const introspection = auth.introspection;
  const clientSecret = introspection ? env[introspection.clientSecretEnv] : undefined;
  if (introspection) {
    // Read once: neither tools nor the servers they start inherit it.
    delete env[introspection.clientSecretEnv];
    if (!clientSecret) {
      throw new UsageError(
        `server.auth.introspection reads the client secret from $${introspection.clientSecretEnv}, which is not set. Set it, or remove introspection.`,
      );
    }
  }
  const { createOAuthResource, OAuthConfigError } = await import('../server/oauth-resource.js');
  // The schema requires publicUrl beside auth.
  const base = (publicUrl ?? '').replace(/\/+$/, '');
  try {
    return createOAuthResource({
      issuer: auth.issuer,
      audience: auth.audience ?? `${base}${MCP_PATH}`,
      publicUrl: base,
      ...(auth.scopes ? { scopes: auth.scopes } : {}),
      ...(introspection && clientSecret
        ? {
            introspection: {
              clientId: introspection.clientId,
              clientSecret,
              ...(introspection.endpoint ? { endpoint: introspection.endpoint } : {}),
            },
          }
        : {}),
    });
  } catch (error) {
    if (error instanceof OAuthConfigError) throw new UsageError(error.message);
    throw error;
  }
}

async function startHttp(
  host: ToolHost,
  options: HttpServeOptions & { port: number },
): Promise<HttpServer> {
  const { serveHttp } = await import('../server/http-server.js');
  try {
    return await serveHttp(host, options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new UsageError(
        `Port ${options.port} is in use. Pick another with --port, or stop the other server.`,
      );
    }
    if ((error as Error).name === 'UnsafeBindError') throw new UsageError((error as Error).message);
    // A duplicate token name or secret, or a bad name: a config mistake.
    if ((error as Error).name === 'TokenConfigError') {
      throw new UsageError(`server.tokens: ${(error as Error).message}`);
    }
    throw error;
  }
}
