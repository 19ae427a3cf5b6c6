import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  type PipelineToolExecutor,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { traceCommand } from './commands/trace.js';
import type { CliIo } from './commands/types.js';
import type { DeploymentConfig } from './config.js';
import { createExecutionStack } from './execution-stack.js';
import { readTraceFile, TRACE_FILE_NAME } from './trace-file.js';

let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'toolsys-host-executor-'));
});

afterEach(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

const ECHO_TOOL = {
  id: 'echo',
  description: 'fixture',
  inputSchema: ToolSchema.object({}),
  metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
  execute: () => 'hello',
} as const;

/** An execution stack over `tools`, its deployment in `dataDir` with `config`. */
function stackOf(tools: AnyToolDefinition[], config: DeploymentConfig = {}) {
  const registry = new ToolRegistry();
  for (const tool of tools) registry.register(tool);
  const host = createExecutionStack({
    registry,
    deployment: { config, file: undefined, workspaceRoot: dataDir, dataDir, configDir: dataDir },
  });
  return { registry, host };
}

/** The stack with `echo` and `flaky_fetch`, a tool that always fails like a broken backend. */
function stack() {
  return stackOf([
    defineTool(ECHO_TOOL),
    defineTool({
      id: 'flaky_fetch',
      description: 'fixture that always fails like a broken backend',
      inputSchema: ToolSchema.object({}),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: () => failureResult('EXECUTION_FAILED', 'connection refused'),
    }),
  ]).host;
}

function captureIo(): CliIo & { out: () => string } {
  let out = '';
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: () => true },
    env: { TOOLSYS_DATA_DIR: dataDir, INIT_CWD: dataDir },
    interactive: false,
    out: () => out,
  };
}

describe('host execution stack', () => {
  it('appends one span per call to <dataDir>/traces.jsonl and reloads them at start', async () => {
    const first = stack();
    await first.executor.execute('echo', {});
    await first.executor.execute('echo', {});
    await first.close();
    const lines = readFileSync(join(dataDir, TRACE_FILE_NAME), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      toolId: 'echo',
      attempt: 1,
      outcome: 'ok',
    });
    const second = stack();
    expect(second.traces.size).toBe(2);
    await second.executor.execute('echo', {});
    await second.close();
    expect(readTraceFile(join(dataDir, TRACE_FILE_NAME))).toHaveLength(3);
  });

  it('opens the breaker after 5 failures and reports it in the JSON snapshot', async () => {
    const host = stack();
    for (let call = 0; call < 6; call += 1) await host.executor.execute('flaky_fetch', {});
    const snapshot = host.snapshot();
    expect(JSON.parse(JSON.stringify(snapshot))).toEqual(snapshot);
    expect(snapshot.breakers).toMatchObject([
      { toolId: 'flaky_fetch', state: 'OPEN', consecutiveFailures: 5 },
    ]);
    expect(host.traces.spans().at(-1)?.outcome).toBe('CIRCUIT_OPEN');
    await host.close();
  });

  it('skips malformed lines of the trace file', () => {
    writeFileSync(
      join(dataDir, TRACE_FILE_NAME),
      '{"toolId":"a","durationMs":1}\n{broken\n{"toolId":"b","durationMs":2}\n',
    );
    expect(readTraceFile(join(dataDir, TRACE_FILE_NAME)).map((span) => span.toolId)).toEqual([
      'a',
      'b',
    ]);
  });
});

describe('toolsys trace', () => {
  it('shows recent spans and the latency histogram from earlier invocations', async () => {
    const host = stack();
    await host.executor.execute('echo', {});
    await host.executor.execute('flaky_fetch', {});
    await host.close();
    const io = captureIo();
    expect(await traceCommand.run([], io)).toBe(0);
    expect(io.out()).toContain('Recent spans (2 of 2):');
    expect(io.out()).toMatch(/echo\s+#1\s+ok/);
    expect(io.out()).toContain('Latency (2 spans):');
    const json = captureIo();
    await traceCommand.run(['--json', '--limit', '1'], json);
    const parsed = JSON.parse(json.out()) as {
      spans: unknown[];
      histogram: unknown[];
      total: number;
    };
    expect(parsed.spans).toHaveLength(1);
    expect(parsed.total).toBe(2);
    expect(parsed.histogram).toHaveLength(2);
  });

  it('says so when nothing was recorded', async () => {
    const io = captureIo();
    await traceCommand.run([], io);
    expect(io.out()).toBe('No spans recorded yet. Call a tool (toolsys call <id>) first.\n');
  });
});

describe('run-policy overrides from the config', () => {
  it('a preset replaces the tool policy and fields override it', async () => {
    const { registry, host } = stackOf(
      [
        defineTool({
          ...ECHO_TOOL,
          runPolicy: {
            name: 'tight',
            maxRetries: 0,
            ratePerMinute: 1,
            backoffBaseMs: 0,
            backoffMaxMs: 0,
          },
        }),
      ],
      { tools: { runPolicies: { echo: { preset: 'mutating', timeoutMs: 1_000 } } } },
    );
    for (let call = 0; call < 5; call += 1)
      expect((await host.executor.execute('echo', {})).ok).toBe(true);
    const tool = registry.get('echo');
    expect(tool && (host.executor as PipelineToolExecutor).policyOf(tool)).toMatchObject({
      name: 'mutating',
      timeoutMs: 1_000,
      maxRetries: 0,
      ratePerMinute: undefined,
    });
    await host.close();
  });
});
