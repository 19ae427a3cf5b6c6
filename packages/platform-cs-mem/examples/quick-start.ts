import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolExecutor, renderResult, ToolRegistry } from '@toolsys/core-tool-registry';
import { createMemoryTools, MemoryStore } from '@toolsys/platform-cs-mem';

const directory = mkdtempSync(join(tmpdir(), 'memory-example-'));
const store = MemoryStore.open({ path: join(directory, 'memory.db') }); // created and migrated
try {
  store.upsertNode({ id: 'person:alice', text: 'Alice prefers dark mode', role: 'person' });

  const registry = new ToolRegistry();
  registry.registerAll(createMemoryTools({ store }));
  const executor = createToolExecutor({ registry });
  const result = await executor.execute('memory_search_nodes', { query: 'dark mode' });
  console.log(renderResult(result));
} finally {
  store.close();
  rmSync(directory, { recursive: true, force: true });
}

// Prints:
// 1 memory node for "dark mode":
// 1. person:alice [person]: Alice prefers [dark] [mode]
