// `skill_install`: installs a skill from a folder, a tarball or npm.
import { rm } from 'node:fs/promises';
import {
  type AnyToolDefinition,
  defineTool,
  principalKey,
  RunPolicies,
  successResult,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { describeTools } from './shared.js';
import { findSkillRoot, readManifest, stageSource } from './skill-source.js';
import type { SkillStore } from './skill-store.js';

/** The `skill_install` tool. */
export function createSkillInstallTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_install',
    description: 'Installs a skill from a folder, .tgz or npm and registers its tools.',
    inputSchema: ToolSchema.object({
      source: z.string().trim().min(1).max(1_000).describe('Folder, .tgz or "npm:<name>".'),
      overwrite: z.boolean().default(false).describe('Replace a same-named one.'),
    }),
    outputSchema: ToolSchema.object({
      name: z.string(),
      tools: z.array(z.string()),
      kind: z.enum(['folder', 'tarball', 'npm']),
    }),
    metadata: {
      category: 'skill',
      risk: 'HIGH',
      tags: ['skills', 'install'],
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: true,
        openWorldHint: true,
        sensitiveAction: true,
      },
    },
    runPolicy: RunPolicies.network,
    async execute({ source, overwrite }, context) {
      const staging = await store.stagingDirectory();
      try {
        const staged = await stageSource(store, source, staging, context.signal);
        const root = await findSkillRoot(staged.root);
        const manifest = await readManifest(root);
        const tools = await store.commit(
          manifest,
          root,
          overwrite,
          principalKey(context.principal),
        );
        return successResult(
          `Installed skill "${manifest.name}" (${describeTools(tools)}). ${manifest.description}`,
          { data: { name: manifest.name, tools, kind: staged.kind } },
        );
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  });
}
