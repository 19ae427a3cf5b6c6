import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineToolExecutor } from '@toolsys/core-tool-registry';
import { McpManager, McpToolRegistrar } from '@toolsys/mcp-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  hostileServer,
  mcpClientExecutor,
  writeHostileServer,
} from './support/mcp-hostile-server.js';
import { expectResponsiveDuring } from './support/responsiveness.js';

// Issue 30 item 16: a remote tool's inputSchema carries `pattern: ^(a+)+$`; an argument of a run
// of `a`s and a `!` made the import's backtracking RegExp run for seconds (doubling with each
// extra character) on the thread every session shares. The argument here takes about a second
// with a backtracking engine on an idle machine: enough to see, short enough not to slow the suite.

const HOSTILE_ARGUMENT = `${'a'.repeat(26)}!`;
const TOOLS = [
  {
    name: 'echo',
    description: 'Echoes.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', pattern: '^(a+)+$' },
        tags: { type: 'object', patternProperties: { '^(b+)+$': { type: 'string' } } },
      },
    },
  },
];

let scratch: string;
let manager: McpManager;
let executor: PipelineToolExecutor;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'toolsys-adv-mcp-patterns-'));
  const script = writeHostileServer(scratch);
  manager = new McpManager({
    servers: [
      hostileServer(script, {
        HOSTILE_TOOLS: JSON.stringify(TOOLS),
        HOSTILE_TEXT: JSON.stringify('echoed'),
      }),
    ],
  });
  const client = mcpClientExecutor(manager);
  new McpToolRegistrar({ manager, registry: client.registry }).attach();
  executor = client.executor;
  await manager.connect('hostile');
}, 30_000);

afterAll(async () => {
  await manager?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const ping = () => executor.execute('mcp_list', {}, { sessionId: 'other' });

describe('remote schema patterns cannot stall the server (issue 30 item 16)', {
  timeout: 60_000,
}, () => {
  it('a first-class remote tool validates a hostile argument without a backtracking stall', async () => {
    const result = await expectResponsiveDuring(
      () =>
        executor.execute(
          'mcp__hostile__echo',
          { text: HOSTILE_ARGUMENT, tags: { [`${'b'.repeat(26)}!`]: 'x' } },
          { sessionId: 'attacker' },
        ),
      ping,
    );
    // The pattern is the server's to enforce: the call reaches it.
    expect(result.ok && result.content).toContain('echoed');
  });

  it('mcp_call validates against the same schema without a stall', async () => {
    const result = await expectResponsiveDuring(
      () =>
        executor.execute(
          'mcp_call',
          { server: 'hostile', tool: 'echo', arguments: { text: HOSTILE_ARGUMENT } },
          { sessionId: 'attacker' },
        ),
      ping,
    );
    expect(result.ok && result.content).toContain('echoed');
  });

  it('the model still sees the pattern in the tool’s schema', () => {
    const listed = manager.tools('hostile')[0];
    expect(JSON.stringify(listed?.inputSchema)).toContain('^(a+)+$');
  });
});
