// The mcp-client package composed on its own, as a deployment composes it: its `detect` (what
// `toolsys doctor` shows) and its tools in a registry and executor of their own.
import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { type McpClientConfig, toolPackage } from '@toolsys/mcp-client';

/** A composed mcp-client package; `dispose` stops every connection and child process. */
export interface ComposedMcpClient {
  readonly registry: ToolRegistry;
  readonly executor: ReturnType<typeof createToolExecutor>;
  /** The `detect` reason (the package's `toolsys doctor` line). */
  readonly reason: string;
  dispose(): Promise<void>;
}

/** Composes the package for the project folder `dir` (config relative to it, data in `dataDir`). */
export async function composeMcpClient(
  dir: string,
  dataDir: string,
  config: McpClientConfig,
): Promise<ComposedMcpClient> {
  const registry = new ToolRegistry();
  const executor = createToolExecutor({ registry });
  const environment = { config, workspaceRoot: dir, dataDir, configDir: dir, env: {} };
  const status = await toolPackage.detect(environment);
  const contribution = await toolPackage.create({
    ...environment,
    registry,
    executor,
    mode: 'serve',
  });
  registry.registerAll(contribution.tools, { owner: toolPackage.name });
  return {
    registry,
    executor,
    reason: status.reason,
    dispose: async () => {
      await contribution.dispose?.();
    },
  };
}
