import { z } from 'zod';
import { ToolHints } from '../contract/tool-metadata.js';
import { successResult, type ToolArtifact } from '../contract/tool-result.js';
import { ToolSchema } from '../contract/tool-schema.js';
import type { PipelineToolExecutor } from '../pipeline/pipeline-tool-executor.js';
import { RiskAwareToolGate } from '../policies/tool-execution-gate.js';
import { ToolPermissionManager } from '../policies/tool-permission-manager.js';
import { createTestExecutor } from '../testing/test-executor.js';
import { defineTestTool } from '../testing/test-tool.js';

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
  const artifacts = options.artifacts ?? [];
  return createTestExecutor({
    tools: [
      defineTestTool({
        id: 'demo.files',
        description: 'Returns the files it was given as artifacts.',
        execute: () => successResult('Wrote the files.', { artifacts }),
      }),
      defineTestTool({
        id: 'sum_numbers',
        description: 'Adds integers: "2+3".',
        inputSchema: ToolSchema.object({
          expression: z.string().describe('Integers joined by +.'),
        }),
        metadata: { category: 'utility', risk: 'LOW', annotations: ToolHints.readOnly },
        execute: ({ expression }) =>
          successResult(String(expression.split('+').reduce((sum, term) => sum + Number(term), 0))),
      }),
      defineTestTool({
        id: 'demo.echo',
        description: 'Echoes the text back.',
        inputSchema: ToolSchema.object({ text: z.string().describe('What to echo.') }),
        execute: (args, context) => successResult(`${args.text} (${context.callId})`),
      }),
      defineTestTool({
        id: 'demo.guarded',
        description: 'A MEDIUM risk tool.',
        metadata: { category: 'utility', risk: 'MEDIUM', annotations: ToolHints.mutating },
        execute: () => successResult('ran'),
      }),
    ],
    gate: new RiskAwareToolGate(new ToolPermissionManager()),
  });
}
