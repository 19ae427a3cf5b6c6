// biome-ignore-all lint/suspicious/noTemplateCurlyInString: config files spell variables as ${…} literally.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { McpConfigImport, McpManager } from '../src/index.js';
import { EVERYTHING } from './support.js';

describe('imported client configs connect to server-everything', () => {
  let directory: string;
  let manager: McpManager | undefined;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'mcp-config-'));
  });
  afterEach(async () => {
    await manager?.close();
    manager = undefined;
    rmSync(directory, { recursive: true, force: true });
  });

  it('a Claude Desktop claude_desktop_config.json', async () => {
    const file = join(directory, 'claude_desktop_config.json');
    writeFileSync(
      file,
      JSON.stringify({
        mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } },
      }),
    );
    const imported = await McpConfigImport.readFile(file, { env: {} });
    expect(imported.errors).toEqual([]);
    manager = new McpManager({ servers: imported.servers });
    // An imported server starts only once approved (the tools ask the user; see tools/mcp-call.ts).
    await expect(manager.callTool('everything', 'echo', { message: 'x' })).rejects.toThrow(
      'MCP server "everything" was imported from an imported config and the user has not approved starting it.',
    );
    expect(manager.client('everything')).toBeUndefined();
    manager.approve('everything');
    const result = await manager.callTool('everything', 'echo', { message: 'from claude' });
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: from claude' }]);
  });

  it('a VS Code .vscode/mcp.json with inputs, ${env:…} and ${workspaceFolder}', async () => {
    const file = join(directory, 'mcp.json');
    writeFileSync(
      file,
      `{
        // VS Code asks for inputs; here they are supplied by the importer.
        "inputs": [
          { "type": "promptString", "id": "greeting", "description": "A value", "password": true }
        ],
        "servers": {
          "everything": {
            "type": "stdio",
            "command": "\${env:NODE_BINARY}",
            "args": ["\${workspaceFolder}/index.js", "stdio"],
            "env": { "GREETING": "\${input:greeting}" },
          },
        },
      }`,
    );
    const imported = await McpConfigImport.readFile(file, {
      env: { NODE_BINARY: process.execPath },
      inputs: { greeting: 'hello from vscode' },
      workspaceFolder: join(EVERYTHING, '..'),
    });
    expect(imported.errors).toEqual([]);
    expect(imported.warnings).toEqual([]);
    manager = new McpManager({ servers: imported.servers });
    manager.approve('everything');
    const result = await manager.callTool('everything', 'get-env', {});
    const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
    expect(text).toContain('"GREETING": "hello from vscode"');
  });
});
