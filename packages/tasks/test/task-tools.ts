// Tools for the task tests: real bash processes through the platform's runner, one that honours
// its signal and one that ignores it, plus a tool that asks for input and one with a huge result.
import { join } from 'node:path';
import {
  createToolExecutor,
  defineTool,
  type PipelineToolExecutor,
  successResult,
  ToolHints,
  ToolRegistry,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { runProcess } from '@toolsys/platform';
import { readPidFile } from '@toolsys/test-support';
import { z } from 'zod';

const base = { category: 'shell', risk: 'LOW', annotations: ToolHints.mutating } as const;

/** A registry and executor with the test tools; `dir` receives the pid files. */
export function taskTestExecutor(dir: string): PipelineToolExecutor {
  const registry = new ToolRegistry();
  registry.registerAll([
    defineTool({
      id: 'test.sleep',
      description: 'Runs `sleep` in bash, writing its pid to pid-<name>; honours its signal.',
      inputSchema: ToolSchema.object({ name: z.string(), seconds: z.number() }),
      metadata: { ...base, taskSupport: 'optional' },
      async execute(args, context) {
        context.emit({ type: 'progress', progress: 0, total: args.seconds, message: 'started' });
        const outcome = await runProcess({
          command: `echo $$ > ${join(dir, `pid-${args.name}`)}; exec sleep ${args.seconds}`,
          cwd: dir,
          timeoutMs: 600_000,
          signal: context.signal,
        });
        return successResult(`slept, exit ${outcome.exitCode}`, {
          data: { exit: outcome.exitCode },
        });
      },
    }),
    defineTool({
      id: 'test.hostile',
      description: 'Starts bash sleeping and ignores its signal; never returns.',
      inputSchema: ToolSchema.object({ name: z.string() }),
      metadata: { ...base, taskSupport: 'optional' },
      async execute(args) {
        void runProcess({
          command: `echo $$ > ${join(dir, `pid-${args.name}`)}; trap '' TERM; sleep 300; sleep 300`,
          cwd: dir,
          timeoutMs: 600_000,
        });
        return new Promise<never>(() => {});
      },
    }),
    defineTool({
      id: 'test.ask',
      description: 'Asks its client a question, then says the answer.',
      inputSchema: ToolSchema.object({}),
      metadata: { ...base, taskSupport: 'required' },
      async execute(_args, context) {
        if (!context.requestInput) return 'nobody to ask';
        const answer = await context.requestInput({
          method: 'elicitation/create',
          params: { message: 'Which colour?', requestedSchema: { type: 'object' } },
        });
        return successResult(`answer: ${JSON.stringify(answer)}`);
      },
    }),
    defineTool({
      id: 'test.huge',
      description: 'Returns about 5 MB of text and data.',
      inputSchema: ToolSchema.object({}),
      metadata: { ...base, taskSupport: 'optional' },
      execute: () =>
        successResult('é'.repeat(3_000_000), {
          data: { rows: Array.from({ length: 50_000 }, (_, i) => `row ${i} ${'x'.repeat(40)}`) },
        }),
    }),
    defineTool({
      id: 'test.ask_two',
      description: 'Asks two questions at once (one by key), then says both answers.',
      inputSchema: ToolSchema.object({}),
      metadata: { ...base, taskSupport: 'optional' },
      async execute(_args, context) {
        if (!context.requestInput) return 'nobody to ask';
        const ask = (key: string) =>
          context.requestInput?.({
            key,
            method: 'elicitation/create',
            params: { message: `${key}?`, requestedSchema: { type: 'object' } },
          });
        const [first, second] = await Promise.all([ask('first'), ask('second')]);
        return `first=${JSON.stringify(first?.content)} second=${JSON.stringify(second?.content)}`;
      },
    }),
    defineTool({
      id: 'test.crash',
      description: 'Throws instead of answering.',
      inputSchema: ToolSchema.object({}),
      metadata: { ...base, taskSupport: 'optional' },
      execute: () => {
        throw new Error('the tool fell over');
      },
    }),
    defineTool({
      id: 'test.quick',
      description: 'Answers at once; forbids tasks.',
      inputSchema: ToolSchema.object({}),
      metadata: base,
      execute: () => 'quick',
    }),
  ]);
  return createToolExecutor({ registry });
}

/** The pid a test tool wrote, once it is there. */
export function pidOf(dir: string, name: string): Promise<number> {
  return readPidFile(join(dir, `pid-${name}`));
}

/** Waits until `condition` holds (polling every 20 ms); throws after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
