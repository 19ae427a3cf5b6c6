// `skill_create`: writes a new skill (SKILL.md, tool specs, files) and registers its tools.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, normalize } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  isToolError,
  principalKey,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { describeTools, skillNameField } from './shared.js';
import { parseSkillManifest, renderSkillManifest, type SkillManifest } from './skill-manifest.js';
import type { SkillStore } from './skill-store.js';

const MAX_CREATED_FILE_LENGTH = 256 * 1024;

const toolSpecField = z.looseObject({
  name: z.string().describe('Tool id, e.g. "count_lines".'),
  description: z.string().describe('What it does.'),
  input_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema of the arguments.'),
  command: z
    .string()
    .describe('Bash command; {{arg}} inserts an argument, {{skill_dir}} the skill folder.'),
  timeout_ms: z.number().int().optional().describe('Time limit in ms; default 30000.'),
  risk: z.enum(['LOW', 'MEDIUM', 'HIGH']).optional().describe('Risk; default MEDIUM.'),
  read_only: z.boolean().optional().describe('Only reads.'),
});

/** The `skill_create` tool. */
export function createSkillCreateTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_create',
    description:
      'Creates and installs a skill: SKILL.md with instructions and declared tools, plus files.',
    inputSchema: ToolSchema.object({
      name: skillNameField.describe('Lower-case, digits, hyphens.'),
      description: z.string().trim().min(1).max(1024).describe('What it does, when to use it.'),
      instructions: z.string().max(100_000).default('').describe('SKILL.md body (Markdown).'),
      tools: z.array(toolSpecField).max(20).default([]).describe('Declared tools.'),
      files: z
        .record(z.string(), z.string().max(MAX_CREATED_FILE_LENGTH))
        .optional()
        .describe('Extra files by relative path.'),
      overwrite: z.boolean().default(false).describe('Replace a same-named one.'),
    }),
    outputSchema: ToolSchema.object({ name: z.string(), tools: z.array(z.string()) }),
    metadata: {
      category: 'skill',
      risk: 'MEDIUM',
      tags: ['skills'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ name, description, instructions, tools, files, overwrite }, context) {
      const text = renderSkillManifest({
        name,
        description,
        tools: [],
        body: instructions || `# ${name}\n\n${description}`,
      }).replace(/^---\n/, `---\ntools: ${JSON.stringify(tools)}\n`);
      let manifest: SkillManifest;
      try {
        manifest = parseSkillManifest(text);
      } catch (error) {
        if (!isToolError(error)) throw error;
        return failureResult(error.code, error.message, {
          ...(error.options.field ? { field: error.options.field } : {}),
          hint: 'Fix the tool declaration and retry.',
        });
      }
      const entries = Object.entries(files ?? {});
      if (entries.length > 50) {
        return failureResult(ToolErrorCode.INVALID_ARGUMENT, 'files: at most 50 files.', {
          field: 'files',
        });
      }
      const staging = await store.stagingDirectory();
      try {
        const root = join(staging, name);
        await mkdir(root, { recursive: true });
        for (const [relativePath, content] of entries) {
          const normalised = normalize(relativePath);
          if (
            isAbsolute(relativePath) ||
            normalised.startsWith('..') ||
            normalised === 'SKILL.md' ||
            normalised === '.'
          ) {
            return failureResult(
              ToolErrorCode.INVALID_ARGUMENT,
              `files.${relativePath}: must be a relative path inside the skill folder (not SKILL.md).`,
              { field: `files.${relativePath}` },
            );
          }
          const target = join(root, normalised);
          await mkdir(dirname(target), { recursive: true });
          await writeFile(target, content, {
            mode: normalised.startsWith('scripts') ? 0o755 : 0o644,
          });
        }
        await writeFile(join(root, 'SKILL.md'), renderSkillManifest(manifest));
        const registered = await store.commit(
          manifest,
          root,
          overwrite,
          principalKey(context.principal),
        );
        return successResult(`Created skill "${name}" (${describeTools(registered)}).`, {
          data: { name, tools: registered },
        });
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  });
}
