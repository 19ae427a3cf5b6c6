import { createToolExecutor, ToolRegistry } from '@toolsys/core-tool-registry';
import { describe, expect, it } from 'vitest';
import { createCoreTools } from './index.js';

describe('core tool schemas', () => {
  it('compiles the schemas of most core tools', () => {
    const registry = new ToolRegistry();
    const executor = createToolExecutor({ registry });
    // Definitions only: nothing is executed, so no folder is touched.
    const tools = createCoreTools({
      workspaceRoot: process.cwd(),
      dataDir: process.cwd(),
      executor,
    });
    const without = tools.filter((tool) => !tool.inputSchema.hasFastPath).map((tool) => tool.id);
    expect(tools.length).toBeGreaterThan(40);
    expect(without.length, `no fast path: ${without.join(', ')}`).toBeLessThan(tools.length / 2);
  });
});
