import { z } from 'zod';
import { defineTool } from '../contract/tool.js';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult, type ToolArtifact } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import {
  createToolExecutor,
  type PipelineToolExecutor,
} from '../pipeline/pipeline-tool-executor.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { ToolRegistry } from '../registry/tool-registry.js';

/** A real 1×1 PNG (one opaque red pixel). */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * An executor with a small `sum_numbers` (sums of integers), a dotted id (`demo.echo`) and a MEDIUM risk tool that the
 * risk gate refuses (nobody can confirm), and `demo.files` returning the given artifacts, for the
 * adapter tests.
 */
export function createAdapterTestExecutor(
  options: { artifacts?: readonly ToolArtifact[] } = {},
): PipelineToolExecutor {
  const registry = new ToolRegistry();
  const artifacts = options.artifacts ?? [];
  registry.register(
    defineTool({
      id: 'demo.files',
      description: 'Returns the files it was given as artifacts.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: () => successResult('Wrote the files.', { artifacts }),
    }),
    { owner: 'test' },
  );
  registry.register(
    defineTool({
      id: 'sum_numbers',
      description: 'Adds integers: "2+3".',
      inputSchema: ToolSchema.object({ expression: z.string().describe('Integers joined by +.') }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
      execute: ({ expression }) =>
        successResult(String(expression.split('+').reduce((sum, term) => sum + Number(term), 0))),
    }),
    { owner: 'test' },
  );
  registry.register(
    defineTool({
      id: 'demo.echo',
      description: 'Echoes the text back.',
      inputSchema: ToolSchema.object({ text: z.string().describe('What to echo.') }),
      metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.mutating },
      execute: (args, context) => successResult(`${args.text} (${context.callId})`),
    }),
    { owner: 'test' },
  );
  registry.register(
    defineTool({
      id: 'demo.guarded',
      description: 'A MEDIUM risk tool.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'MEDIUM', annotations: ToolHints.mutating },
      execute: () => successResult('ran'),
    }),
    { owner: 'test' },
  );
  return createToolExecutor({
    registry,
    gate: new RiskAwareToolGate(new ToolPermissionManager()),
  });
}
