import type { ToolPackageEntry } from './types.js';

/** The MCP client package: on by default. */
export const mcpClientPackage: ToolPackageEntry = {
  name: '@toolsys/mcp-client',
  key: 'mcp-client',
  detect: () => ({ enabled: true, reason: 'pure Node, always available' }),
  create: () => ({ tools: [] }),
};
