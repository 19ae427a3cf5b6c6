import { z } from 'zod';
import { DefaultToolExecutor } from '../default-tool-executor.js';
import { defineTool } from '../tool.js';
import { RiskAwareToolGate } from '../tool-execution-gate.js';
import { ToolPermissionManager } from '../tool-permission-manager.js';
import { ToolRegistry } from '../tool-registry.js';
import { successResult, type ToolArtifact } from '../tool-result.js';
import { ToolSchema } from '../tool-schema.js';
import { createUtilityTools } from '../tools/utilities.js';

/** A real 1×1 PNG (one opaque red pixel). */
export const ONE_PIXEL_PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/**
 * An executor with the utility tools, a dotted id (`demo.echo`) and a MEDIUM risk tool that the
 * risk gate refuses (nobody can confirm), and `demo.files` returning the given artifacts, for the
 * adapter tests.
 */
export function createAdapterTestExecutor(
  options: { artifacts?: readonly ToolArtifact[] } = {},
): DefaultToolExecutor {
  const registry = new ToolRegistry();
  const artifacts = options.artifacts ?? [];
  registry.register(
    defineTool({
      id: 'demo.files',
      description: 'Returns the files it was given as artifacts.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'LOW' },
      execute: () => successResult('Wrote the files.', { artifacts }),
    }),
    { owner: 'test' },
  );
  registry.registerAll(createUtilityTools(), { owner: 'core' });
  registry.register(
    defineTool({
      id: 'demo.echo',
      description: 'Echoes the text back.',
      inputSchema: ToolSchema.object({ text: z.string().describe('What to echo.') }),
      metadata: { category: 'utility', risk: 'LOW' },
      execute: (args, context) => successResult(`${args.text} (${context.callId})`),
    }),
    { owner: 'test' },
  );
  registry.register(
    defineTool({
      id: 'demo.guarded',
      description: 'A MEDIUM risk tool.',
      inputSchema: ToolSchema.empty(),
      metadata: { category: 'utility', risk: 'MEDIUM' },
      execute: () => successResult('ran'),
    }),
    { owner: 'test' },
  );
  return new DefaultToolExecutor({
    registry,
    gate: new RiskAwareToolGate(new ToolPermissionManager()),
  });
}
