import {
  type ConfirmationRequest,
  createToolExecutor,
  RiskAwareToolGate,
  ToolPermissionManager,
  ToolRegistry,
} from '@toolsys/core-tool-registry';
import { afterEach, describe, expect, it } from 'vitest';
import { createMcpTools, McpManager, McpToolRegistrar } from '../src/index.js';
import { marked } from './marked.js';
import {
  createHarness,
  EVERYTHING,
  everythingStdio,
  type Harness,
  hangingStdio,
  waitFor,
} from './support.js';

describe('registered exactly once (regression: the seed registered the three tools three times)', () => {
  it('createMcpTools returns each of the three ids once and registers nothing by itself', () => {
    const manager = new McpManager({ servers: [everythingStdio('a'), everythingStdio('b')] });
    const registry = new ToolRegistry();
    const tools = createMcpTools({ manager });
    expect(tools.map((tool) => tool.id)).toEqual(['mcp_connect', 'mcp_list', 'mcp_call']);
    expect(registry.size).toBe(0);
    registry.registerAll(tools, { policy: 'REJECT', owner: '@toolsys/mcp-client' });
    expect(registry.ids()).toEqual(['mcp_call', 'mcp_connect', 'mcp_list']);
  });

  it('connecting several servers never registers the three tools again', async () => {
    const harness = createHarness({ servers: [everythingStdio('a'), everythingStdio('b')] });
    try {
      const changes: string[] = [];
      harness.registry.onChange((change) => changes.push(`${change.type} ${change.id}`));
      await harness.executor.execute('mcp_connect', { server: 'a' });
      await harness.executor.execute('mcp_connect', { server: 'b' });
      await harness.executor.execute('mcp_connect', { server: 'a' });
      expect(changes).toEqual([]);
      expect(harness.registry.ids()).toEqual(['mcp_call', 'mcp_connect', 'mcp_list']);
    } finally {
      await harness.close();
    }
  });
});

describe('McpToolRegistrar with server-everything', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  function setUp(trusted: boolean) {
    const prompts: ConfirmationRequest[] = [];
    const manager = new McpManager({ servers: [{ ...everythingStdio(), trusted }] });
    cleanups.push(() => manager.close());
    const registry = new ToolRegistry();
    const permissions = new ToolPermissionManager({
      confirm: async (request) => {
        prompts.push(request);
        return 'allow_once';
      },
    });
    const executor = createToolExecutor({
      registry,
      gate: new RiskAwareToolGate(permissions),
    });
    const registrar = new McpToolRegistrar({ manager, registry });
    registrar.attach();
    return { manager, registry, executor, registrar, prompts };
  }

  it('registers every remote tool as mcp__<server>__<tool> and runs it through the pipeline', async () => {
    const { manager, registry, executor, registrar } = setUp(false);
    await manager.connect('everything');
    expect(registry.ids()).toContain('mcp__everything__echo');
    expect(registry.ids()).toContain('mcp__everything__get-structured-content');
    expect(registrar.resolve('mcp__everything__echo')).toEqual({
      server: 'everything',
      tool: 'echo',
    });
    const result = await executor.execute('mcp__everything__echo', { message: 'first class' });
    expect(result).toEqual({ ok: true, content: marked('Echo: first class') });
    const invalid = await executor.execute('mcp__everything__echo', { message: 42 });
    expect(invalid.ok === false && invalid.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'message',
    });
  });

  it('an untrusted read-only hint does not lower risk or skip confirmation', async () => {
    const { manager, registry, executor, prompts } = setUp(false);
    await manager.connect('everything');
    const echo = registry.get('mcp__everything__echo');
    expect(echo?.metadata.risk).toBe('MEDIUM');
    expect(echo?.metadata.annotations).toMatchObject({
      readOnlyHint: false,
      idempotentHint: false,
    });
    expect(echo?.runPolicy?.maxRetries).toBe(0);
    await executor.execute('mcp__everything__echo', { message: 'x' });
    expect(prompts.map((prompt) => [prompt.toolId, prompt.risk])).toEqual([
      ['mcp__everything__echo', 'MEDIUM'],
    ]);
  });

  it('a trusted server read-only tool is LOW risk and runs without a prompt', async () => {
    const { manager, registry, executor, prompts } = setUp(true);
    await manager.connect('everything');
    expect(registry.get('mcp__everything__echo')?.metadata.risk).toBe('LOW');
    const result = await executor.execute('mcp__everything__echo', { message: 'x' });
    expect(result.ok).toBe(true);
    expect(prompts).toEqual([]);
  });

  it('follows notifications/tools/list_changed: a new remote tool gets registered', async () => {
    const manager = new McpManager({
      servers: [hangingStdio('fixture')],
    });
    cleanups.push(() => manager.close());
    const registry = new ToolRegistry();
    new McpToolRegistrar({ manager, registry }).attach();
    await manager.connect('fixture');
    expect(registry.ids()).toEqual(['mcp__fixture__grow', 'mcp__fixture__hang']);
    await manager.callTool('fixture', 'grow', {});
    await waitFor(() => registry.has('mcp__fixture__extra-1'));
    expect(manager.tools('fixture').map((tool) => tool.name)).toEqual(['hang', 'grow', 'extra-1']);
  });

  it('maps characters an id cannot hold to "_" and refuses two names that collide', async () => {
    const manager = new McpManager({
      servers: [hangingStdio('my.server'), hangingStdio('my_server')],
    });
    cleanups.push(() => manager.close());
    const registry = new ToolRegistry();
    const registrar = new McpToolRegistrar({ manager, registry });
    await manager.connect('my.server');
    await manager.connect('my_server');
    expect(registrar.sync('my.server').registered).toEqual([
      'mcp__my_server__hang',
      'mcp__my_server__grow',
    ]);
    const outcome = registrar.sync('my_server');
    expect(outcome.registered).toEqual([]);
    expect(outcome.skipped).toEqual([
      {
        server: 'my_server',
        tool: 'hang',
        reason:
          'its id "mcp__my_server__hang" is already used by tool "hang" of server "my.server"',
      },
      {
        server: 'my_server',
        tool: 'grow',
        reason:
          'its id "mcp__my_server__grow" is already used by tool "grow" of server "my.server"',
      },
    ]);
    expect(registrar.resolve('mcp__my_server__hang')).toEqual({
      server: 'my.server',
      tool: 'hang',
    });
  });

  it('leaves out remote tools whose names are not plain MCP names, saying so', async () => {
    const manager = new McpManager({
      servers: [hangingStdio('fixture', { EXTRA_TOOL_NAMES: 'read file,read_file' })],
    });
    cleanups.push(() => manager.close());
    const registry = new ToolRegistry();
    new McpToolRegistrar({ manager, registry }).attach();
    await manager.connect('fixture');
    expect(registry.ids()).toEqual([
      'mcp__fixture__grow',
      'mcp__fixture__hang',
      'mcp__fixture__read_file',
    ]);
    expect(manager.state('fixture').rejectedTools).toEqual([
      {
        name: 'read file',
        reason:
          'its name is not a plain MCP tool name (letters, digits, "_", "." and "-", at most 128)',
      },
    ]);
  });

  it('removing a server unregisters its tools', async () => {
    const { manager, registry } = setUp(false);
    await manager.connect('everything');
    expect(registry.ids().some((id) => id.startsWith('mcp__everything__'))).toBe(true);
    await manager.remove('everything');
    expect(registry.ids().some((id) => id.startsWith('mcp__everything__'))).toBe(false);
  });
});

describe('ad hoc servers', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('asks at HIGH risk before starting an ad hoc command, and refuses on deny', async () => {
    const prompts: ConfirmationRequest[] = [];
    harness = createHarness({
      adHoc: 'confirm',
      executorOptions: {
        confirm: async (request) => {
          prompts.push(request);
          return 'deny';
        },
      },
    });
    const result = await harness.executor.execute('mcp_connect', {
      server: 'mine',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    expect(result.ok === false && result.error.code).toBe('PERMISSION_DENIED');
    expect(prompts).toEqual([
      {
        toolId: 'mcp_connect',
        sessionId: 'default',
        risk: 'HIGH',
        // Every argument, then the absolute path of the program that really runs.
        action: expect.stringContaining(
          `Start an unconfigured MCP server: ${JSON.stringify(process.execPath)} ${JSON.stringify(EVERYTHING)} "stdio"\nruns: ${JSON.stringify(process.execPath)}`,
        ),
        reason:
          'An ad hoc MCP server runs a program or reaches a URL that the deployment did not configure.',
      },
    ]);
    expect(harness.manager.has('mine')).toBe(false);
  });

  it('connects an ad hoc command once the user allows it', async () => {
    harness = createHarness({
      adHoc: 'confirm',
      executorOptions: { confirm: async () => 'allow_once' },
    });
    const result = await harness.executor.execute('mcp_connect', {
      server: 'mine',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
    });
    expect(result.ok).toBe(true);
    expect(harness.manager.state('mine')).toMatchObject({ adHoc: true, trusted: false });
  });

  it('refuses ad hoc servers when the deployment denies them', async () => {
    harness = createHarness({ adHoc: 'deny' });
    const result = await harness.executor.execute('mcp_connect', { url: 'http://127.0.0.1:9/mcp' });
    expect(result.ok === false && result.error).toMatchObject({
      code: 'PERMISSION_DENIED',
      message: 'This deployment does not allow ad hoc MCP servers.',
    });
  });

  it('rejects both command and url, naming the field', async () => {
    harness = createHarness();
    const result = await harness.executor.execute('mcp_connect', {
      command: 'node',
      url: 'http://127.0.0.1:9/mcp',
    });
    expect(result.ok === false && result.error).toMatchObject({
      code: 'INVALID_ARGUMENT',
      field: 'url',
    });
  });
});
