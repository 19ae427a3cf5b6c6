import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolResult } from '@toolsys/core-tool-registry';
import type { Deployment, ToolHost } from '@toolsys/host';
import { McpManager } from '@toolsys/mcp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deployHost } from './support/host.js';
import {
  hostileServer,
  mcpClientExecutor,
  writeHostileServer,
} from './support/mcp-hostile-server.js';

// Issue 30 item 19: one result holds at most 200,000 characters, its text and its structured
// content together, wherever it comes from (a core tool, a remote MCP server). Each attack makes a
// tool return far more and asserts what the caller receives is within the budget, says it was
// cut and names the next step.

const BUDGET = 200_000;
const CUT_NOTE =
  'one result holds at most 200,000 characters, so the rest is not shown. Next: ask for less';

let scratch: string;
let deployment: Deployment;
let host: ToolHost;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-result-budget-'));
  ({ deployment, host } = await deployHost(scratch));
}, 60_000);

afterAll(async () => {
  await deployment?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

function call(toolId: string, args: unknown) {
  return host.call(toolId, args, { sessionId: 'attacker', source: 'mcp' });
}

/** Characters the caller receives: the text plus the structured content as JSON. */
function received(result: ToolResult): number {
  if (!result.ok) return result.error.message.length;
  return (
    result.content.length + (result.data === undefined ? 0 : JSON.stringify(result.data).length)
  );
}

function expectCutWithinBudget(result: ToolResult): void {
  expect(result.ok).toBe(true);
  expect(received(result)).toBeLessThanOrEqual(BUDGET);
  expect(result.ok && result.content).toContain(CUT_NOTE);
}

describe('core tools stay within one result budget (issue 30 item 19)', { timeout: 60_000 }, () => {
  it('regex_replace that multiplies a text returns at most 200,000 characters, saying it was cut', async () => {
    const result = await call('regex_replace', {
      text: 'a'.repeat(1_000_000),
      pattern: 'a',
      replacement: 'bb',
    });
    expectCutWithinBudget(result);
    expect(result.ok && result.content.startsWith('bbbb')).toBe(true);
    expect((result.ok && (result.data as { replacements: number }).replacements) || 0).toBe(
      1_000_000,
    );
  });

  it('text_transform base64_encode of a long text returns at most 200,000 characters', async () => {
    const result = await call('text_transform', {
      text: 'z'.repeat(900_000),
      operation: 'base64_encode',
    });
    expectCutWithinBudget(result);
  });

  it('json_path matching every node keeps its structured content within the budget', async () => {
    const document = {
      items: Array.from({ length: 10_000 }, (_, index) => ({
        id: index,
        name: `item-${index}`.padEnd(80, '.'),
      })),
    };
    const result = await call('json_path', { json: document, path: '$.items[*]', limit: 10_000 });
    expectCutWithinBudget(result);
    const data = result.ok ? (result.data as { count: number; matches: unknown[] }) : undefined;
    // The shape is kept: the count is the real one, the matches are the first ones.
    expect(data?.count).toBe(10_000);
    expect(data?.matches[0]).toEqual({
      path: '$.items[0]',
      value: { id: 0, name: 'item-0'.padEnd(80, '.') },
    });
    expect(data?.matches.length).toBeLessThan(10_000);
  });

  it('list_files at its largest limit stays within the budget, text and entries together', async () => {
    const folder = join(scratch, 'workspace', 'many');
    mkdirSync(folder);
    for (let index = 0; index < 6_000; index++) {
      writeFileSync(join(folder, `a-file-with-a-rather-long-descriptive-name-${index}.txt`), '');
    }
    const result = await call('list_files', { path: 'many', limit: 5_000 });
    expectCutWithinBudget(result);
  });
});

describe('remote MCP results stay within one result budget (issue 30 item 19)', {
  timeout: 60_000,
}, () => {
  it('a 4 MB structuredContent and a 4 MB image reach the caller as at most 200,000 characters', async () => {
    const script = writeHostileServer(scratch);
    const manager = new McpManager({
      servers: [
        hostileServer(script, {
          HOSTILE_STRUCTURED_SIZE: String(4_000_000),
          HOSTILE_TEXT: JSON.stringify(''),
        }),
      ],
    });
    try {
      const { executor } = mcpClientExecutor(manager);
      await manager.connect('hostile');
      const result = await executor.execute('mcp_call', { server: 'hostile', tool: 'echo' });
      expectCutWithinBudget(result);
      // What is kept is still the server's structured content, with its shape.
      const data = result.ok ? (result.data as { blob: string; rows: unknown[] }) : undefined;
      expect(typeof data?.blob).toBe('string');
      expect(Array.isArray(data?.rows)).toBe(true);
    } finally {
      await manager.close();
    }
  });
});
