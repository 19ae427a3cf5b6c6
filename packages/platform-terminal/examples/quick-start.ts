import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createToolExecutor, renderResult, ToolRegistry } from '@toolsys/core-tool-registry';
import { createTerminalTools, RootfsManager, TerminalManager } from '@toolsys/platform-terminal';

const workspace = mkdtempSync(join(tmpdir(), 'terminal-example-'));
const manager = new TerminalManager({ workspaceRoot: workspace, maxSessions: 4 });
const rootfs = new RootfsManager({ baseDir: join(workspace, 'rootfs') });
try {
  const registry = new ToolRegistry();
  registry.registerAll(createTerminalTools({ manager, rootfs }));
  // Input to a session outside the OS sandbox asks the user every time: here the user says yes.
  const executor = createToolExecutor({
    registry,
    confirm: async (request) => {
      console.log(`asked: ${request.action}`);
      return 'allow_once';
    },
  });

  const result = await executor.execute('terminal.run', { command: 'echo hi; exit 3' });
  if (result.ok) {
    const { exitCode, output } = result.data as { exitCode: number | null; output: string };
    console.log(`exit code ${exitCode}`);
    console.log(output.trim());
  } else {
    console.log(renderResult(result));
  }
} finally {
  await manager.dispose(); // ends every session and every process they started
  rmSync(workspace, { recursive: true, force: true });
}

// Prints:
// asked: echo hi; exit 3
// exit code 3
// hi
// exit
