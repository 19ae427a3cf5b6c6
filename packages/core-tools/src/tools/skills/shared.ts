// Options and fields shared by the skill tools.
import type { ToolRegistry } from '@toolsys/core-tool-registry';
import type { ShellPolicyOptions } from '@toolsys/platform';
import { z } from 'zod';
import { SKILL_NAME_PATTERN } from './skill-manifest.js';

/** Options for {@link createSkillTools}. */
export interface SkillToolsOptions {
  /** Directory installed skills live in, one folder per skill; created on the first install. */
  directory: string;
  /** Registry that skill-declared tools are added to and removed from at run time. */
  registry: ToolRegistry;
  /** Directory skill commands run in; relative install sources are resolved from it. */
  workspaceRoot: string;
  /**
   * Skill catalogs searched by `skill_search`: paths of JSON index files
   * (`{"skills": [{"name", "description", "source"}]}` or a bare array) or of folders of skills.
   */
  catalogs?: readonly string[];
  /** Variables added to the allow-listed environment of skill commands (e.g. allow-lists). */
  environment?: Readonly<Record<string, string>>;
  /** More server variables skill commands receive (see `approvedEnvironment`). Default none. */
  passEnvironment?: readonly string[];
  /** Shell permission chain options applied to skill commands. */
  shellPolicy?: ShellPolicyOptions;
  /** Whether `skill_install` may fetch npm packages with `npm pack`; true by default. */
  allowNpm?: boolean;
  /** The npm executable; `npm` by default. */
  npmCommand?: string;
  /** Register the tools of skills already installed when the tools are created; true by default. */
  loadInstalled?: boolean;
}

/** "tools: a, b" or "no tools", for result messages. */
export function describeTools(ids: readonly string[]): string {
  return ids.length > 0 ? `tools: ${ids.join(', ')}` : 'no tools';
}

/** A skill name: lower-case letters, digits and single hyphens. */
export const skillNameField = z
  .string()
  .regex(SKILL_NAME_PATTERN, 'lower-case letters, digits and single hyphens, at most 64')
  .refine((name) => !name.endsWith('-'), 'must not end with a hyphen');
