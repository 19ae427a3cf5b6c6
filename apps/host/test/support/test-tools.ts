import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  type AnyToolPackageEntry,
  defineTool,
  defineToolPackage,
  successResult,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { toolPackage as corePackage } from '@toolsys/core-tools';
import { z } from 'zod';
import { resolveDeploymentConfig } from '../../src/config.js';
import { composeDeployment, type Deployment } from '../../src/deployment.js';
import { scopedConfirm } from '../../src/server/call-scope.js';
import { ToolHost } from '../../src/server/tool-host.js';
import { encodePng } from './png.js';

/** What the test tools observed, for assertions on cancellation. */
export interface TestToolProbe {
  /** Resolves with the abort reason's message when `test_slow` sees its signal abort. */
  aborted: Promise<string>;
  /** The session ids the test package was told had ended, in order. */
  endedSessions: string[];
  /** Calls of `test_wait` running right now. */
  waiting: number;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** Tools that exercise the server: progress, cancellation, structure, confirmation. */
export function createTestTools(): { tools: AnyToolDefinition[]; probe: TestToolProbe } {
  let reportAbort: (message: string) => void = () => {};
  const aborted = new Promise<string>((resolve) => {
    reportAbort = resolve;
  });
  const probe: TestToolProbe = { aborted, endedSessions: [], waiting: 0 };
  const tools: AnyToolDefinition[] = [
    defineTool({
      id: 'test_slow',
      description: 'Emits progress every 20 ms until cancelled or until `steps` steps are done.',
      inputSchema: ToolSchema.object({
        steps: z.number().int().min(1).max(10_000).default(3).describe('Steps to run.'),
      }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      async execute(args, context) {
        for (let step = 1; step <= args.steps; step += 1) {
          if (context.signal.aborted) {
            reportAbort(String((context.signal.reason as Error | undefined)?.message ?? 'aborted'));
            return successResult('stopped');
          }
          await sleep(20, context.signal);
          context.emit({
            type: 'progress',
            progress: step,
            total: args.steps,
            message: `step ${step}`,
          });
          context.emit({ type: 'output', stream: 'stdout', text: `line ${step}\n` });
        }
        if (context.signal.aborted) {
          reportAbort(String((context.signal.reason as Error | undefined)?.message ?? 'aborted'));
        }
        return successResult(`done ${args.steps}`);
      },
    }),
    defineTool({
      id: 'test_wait',
      description: 'Waits `ms` milliseconds without a word (no progress, no output), then answers.',
      inputSchema: ToolSchema.object({
        ms: z.number().int().min(0).max(60_000).describe('How long to wait.'),
      }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      async execute(args, context) {
        probe.waiting += 1;
        await sleep(args.ms, context.signal);
        probe.waiting -= 1;
        return successResult(`waited ${args.ms} ms`);
      },
    }),
    defineTool({
      id: 'test_structured',
      description: 'Returns a greeting with structured output.',
      inputSchema: ToolSchema.object({ name: z.string().describe('Who to greet.') }),
      outputSchema: ToolSchema.object({ greeting: z.string(), length: z.number() }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: (args) =>
        successResult(`Hello, ${args.name}!`, {
          data: { greeting: `Hello, ${args.name}!`, length: args.name.length },
        }),
    }),
    defineTool({
      id: 'test_guarded',
      description: 'A MEDIUM risk tool: the risk gate asks the user before it runs.',
      inputSchema: ToolSchema.object({ note: z.string().default('').describe('Anything.') }),
      metadata: { category: 'utility', risk: 'MEDIUM', annotations: ToolHints.destructive },
      execute: (args) => successResult(`guarded ran ${args.note}`),
    }),
  ];
  return { tools, probe };
}

/**
 * `test_artifacts`: writes a PNG and a text file under the data directory (a random-pixel PNG
 * past 1 MiB with `large`) and returns them as artifacts; `extra` adds an artifact at any path
 * (outside the data directory, a folder …); `inline` asks for the text file inline.
 */
export function artifactTool(dataDir: string): AnyToolDefinition {
  return defineTool({
    id: 'test_artifacts',
    description: 'Writes a PNG and a text file under the data directory and returns them.',
    inputSchema: ToolSchema.object({
      name: z
        .string()
        .regex(/^[\w -]+$/)
        .describe('Base name of the files.'),
      large: z.boolean().default(false).describe('Write a PNG larger than 1 MiB.'),
      extra: z.string().optional().describe('An absolute path returned as one more artifact.'),
      inline: z.boolean().default(false).describe('Mark the text file to be sent inline.'),
    }),
    metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
    execute: (args) => {
      const folder = join(dataDir, 'artifacts');
      mkdirSync(folder, { recursive: true });
      const noise = randomBytes(args.large ? 700 * 700 * 3 : 0);
      const png = args.large
        ? encodePng(700, 700, (x, y) => {
            const at = (y * 700 + x) * 3;
            return [noise[at] ?? 0, noise[at + 1] ?? 0, noise[at + 2] ?? 0];
          })
        : encodePng(4, 3, (x, y) => [x * 60, y * 80, 200]);
      const image = join(folder, `${args.name}.png`);
      const log = join(folder, `${args.name}.log`);
      writeFileSync(image, png);
      writeFileSync(log, `log of ${args.name}\nsecond line ✓\n`);
      return successResult(`wrote ${args.name}`, {
        artifacts: [
          { path: image, mimeType: 'image/png', description: 'a test image' },
          { path: log, mimeType: 'text/plain', ...(args.inline ? { inline: true } : {}) },
          ...(args.extra ? [{ path: args.extra, mimeType: 'text/plain' }] : []),
        ],
      });
    },
  });
}

/** A package entry contributing the test tools (and `test_artifacts` for its data directory). */
export function testToolsPackage(
  tools: AnyToolDefinition[],
  probe?: TestToolProbe,
): AnyToolPackageEntry {
  return defineToolPackage({
    name: '@toolsys/host-test-tools',
    key: 'test',
    description: 'tools for the host tests',
    configSchema: z.object({}).strict(),
    detect: () => ({ enabled: true, reason: 'test tools' }),
    create: ({ dataDir }) => ({
      tools: [...tools, artifactTool(dataDir)],
      endSession: (sessionId: string) => {
        probe?.endedSessions.push(sessionId);
      },
    }),
  });
}

/** A served deployment in a scratch directory: core + the test tools. */
export interface TestHost {
  readonly host: ToolHost;
  readonly deployment: Deployment;
  readonly probe: TestToolProbe;
  readonly scratch: string;
  /** Closes the deployment and deletes the scratch directory. */
  dispose(): Promise<void>;
}

/**
 * Composes core + the test tools the way `toolsys serve` does (confirmations per call); `extra`
 * adds config fields (e.g. `state`, `telemetry`).
 */
export async function createTestHost(
  extra: Record<string, unknown> = {},
  options: { warn?: (message: string) => void } = {},
): Promise<TestHost> {
  const scratch = mkdtempSync(join(tmpdir(), 'toolsys-host-'));
  const { tools, probe } = createTestTools();
  mkdirSync(join(scratch, 'workspace'));
  const config = resolveDeploymentConfig(
    { workspaceRoot: join(scratch, 'workspace'), dataDir: join(scratch, 'data'), ...extra },
    { cwd: scratch, env: {} },
  );
  const deployment = await composeDeployment(config, {
    packages: [corePackage, testToolsPackage(tools, probe)],
    confirm: scopedConfirm,
  });
  const host = new ToolHost(deployment, options.warn ? { warn: options.warn } : {});
  return {
    host,
    deployment,
    probe,
    scratch,
    async dispose() {
      await host.close();
      await deployment.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
