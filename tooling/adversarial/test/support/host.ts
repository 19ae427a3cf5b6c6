import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  defineToolPackage,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import {
  type ComposeOptions,
  composeDeployment,
  type Deployment,
  type DeploymentConfig,
  resolveDeploymentConfig,
  type StdioServer,
  serveStdio,
  ToolHost,
} from '@toolsys/host';
import { MCP_POST_HEADERS } from '@toolsys/test-support';
import { type RpcMessage, StdioMcpSession } from './stdio-mcp-session.js';

/** A deployment composed in-process, as `toolsys serve` composes it, in a folder of its own. */
export interface HostDeployment {
  /** The project folder: `workspace/` and `data/` are inside it. */
  readonly dir: string;
  /** The workspace the file and shell tools work in. */
  readonly workspace: string;
  readonly deployment: Deployment;
  /** The host the servers serve; its warnings are dropped. */
  readonly host: ToolHost;
}

/** Options of {@link deployHost}. */
export interface DeployHostOptions {
  /** Config fields beside the folder's workspace and data directory (`state`, `tools` …). */
  readonly config?: DeploymentConfig;
  /** The packages composed. Default: the core package only. */
  readonly packages?: readonly AnyToolPackageEntry[];
  /** How a confirmation is asked (e.g. `scopedConfirm`). Default: none, as a bare compose. */
  readonly confirm?: ComposeOptions['confirm'];
  /** The environment the config resolves against. Default: empty. */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * Composes a deployment for the folder `dir` (created when missing) with its workspace in
 * `dir/workspace` and its data in `dir/data`. The caller closes the deployment.
 */
export async function deployHost(
  dir: string,
  options: DeployHostOptions = {},
): Promise<HostDeployment> {
  const workspace = join(dir, 'workspace');
  mkdirSync(workspace, { recursive: true });
  const config = resolveDeploymentConfig(
    { workspaceRoot: workspace, dataDir: join(dir, 'data'), ...options.config },
    { cwd: dir, env: options.env ?? {} },
  );
  const deployment = await composeDeployment(config, {
    packages: options.packages ?? [corePackage],
    ...(options.confirm ? { confirm: options.confirm } : {}),
  });
  return { dir, workspace, deployment, host: new ToolHost(deployment, { warn: () => {} }) };
}

/**
 * An in-process stdio connection to `host`: the server and an initialized client session over it.
 * With `decision` the client announces elicitation and answers every question with it; without,
 * it cannot be asked. The caller closes the server.
 */
export async function openStdioSession(
  host: ToolHost,
  decision?: string,
): Promise<{ server: StdioServer; session: StdioMcpSession }> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const server = await serveStdio(host, { stdin: toServer, stdout: fromServer });
  const session = new StdioMcpSession(fromServer, toServer, { onElicit: () => decision });
  await session.initialize(decision !== undefined);
  return { server, session };
}

/** Options of {@link definePackageOf}. */
export interface PackageOfOptions {
  /** The package name, e.g. `@toolsys/adversarial-probe`. */
  readonly name: string;
  /** Its config section's key. */
  readonly key: string;
  readonly description: string;
  /** The tools it contributes. */
  readonly tools: readonly AnyToolDefinition[];
  /** Told each session id that ends. */
  readonly endSession?: (sessionId: string) => void;
}

/** A package entry, always enabled, with an empty config section, contributing `tools`. */
export function definePackageOf(options: PackageOfOptions): AnyToolPackageEntry {
  return defineToolPackage({
    name: options.name,
    key: options.key,
    description: options.description,
    // Any object schema will do; the section is empty.
    configSchema: corePackage.configSchema,
    detect: () => ({ enabled: true, reason: 'test' }),
    create: () => ({
      tools: [...options.tools],
      ...(options.endSession ? { endSession: options.endSession } : {}),
    }),
  });
}

/** What the HTTP server answered one POST with. */
export interface McpHttpReply {
  readonly status: number;
  readonly headers: Headers;
  /** The body as text. */
  readonly text: string;
  /** The session id the answer named, else the one sent, else empty. */
  readonly sessionId: string;
  /** The JSON-RPC message of the answer (from JSON or the first SSE event; `{}` when none). */
  readonly message: RpcMessage;
}

/** Options of {@link postMcp}. */
export interface PostMcpOptions {
  /** Sent as `Mcp-Session-Id`. */
  readonly sessionId?: string;
  /** More headers (authorization …), after the usual ones. */
  readonly headers?: Record<string, string>;
}

/** POSTs one JSON-RPC message (a string is sent as it is) to an MCP endpoint, as any client could. */
export async function postMcp(
  url: string,
  body: unknown,
  options: PostMcpOptions = {},
): Promise<McpHttpReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...MCP_POST_HEADERS,
      ...(options.sessionId ? { 'mcp-session-id': options.sessionId } : {}),
      ...options.headers,
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const data = text.startsWith('{') ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? '{}');
  return {
    status: response.status,
    headers: response.headers,
    text,
    sessionId: response.headers.get('mcp-session-id') ?? options.sessionId ?? '',
    message: JSON.parse(data) as RpcMessage,
  };
}

/** The text of the first content block of a `tools/call` answer; empty when there is none. */
export function firstText(message: RpcMessage): string {
  const content = (message.result?.content ?? []) as Array<{ text?: string }>;
  return content[0]?.text ?? '';
}
