import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import type { ToolRegistry } from '@toolsys/core-tool-registry';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  isToolError,
  RunPolicies,
  successResult,
  ToolError,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule, type ShellPolicyOptions } from '@toolsys/platform';
import type { ReadEntry } from 'tar';
import { z } from 'zod';
import {
  parseSkillManifest,
  renderSkillManifest,
  SKILL_NAME_PATTERN,
  type SkillManifest,
} from './skill-manifest.js';
import { SkillToolAdapter } from './skill-tool-adapter.js';

const tar = lazyModule<typeof import('tar')>('tar');

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

const MAX_EXTRACTED_BYTES = 50 * 1024 * 1024;
const MAX_CREATED_FILE_LENGTH = 256 * 1024;
const NPM_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*(?:@[A-Za-z0-9.^~<>=|* -]+)?$/;
const NPM_TIMEOUT_MS = 120_000;

interface InstalledSkill {
  readonly manifest: SkillManifest;
  readonly folder: string;
}

interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly source: string;
}

/** `skill_search`, `skill_install`, `skill_create`, `skill_list` and `skill_uninstall`. */
export function createSkillTools(options: SkillToolsOptions): AnyToolDefinition[] {
  const store = new SkillStore(options);
  if (options.loadInstalled ?? true) store.loadInstalledSync();
  return [
    createSkillSearchTool(store),
    createSkillInstallTool(store),
    createSkillCreateTool(store),
    createSkillListTool(store),
    createSkillUninstallTool(store),
  ];
}

class SkillStore {
  readonly options: SkillToolsOptions;
  readonly adapter: SkillToolAdapter;

  constructor(options: SkillToolsOptions) {
    this.options = options;
    this.adapter = new SkillToolAdapter({
      registry: options.registry,
      workspaceRoot: options.workspaceRoot,
      ...(options.environment ? { environment: options.environment } : {}),
      ...(options.passEnvironment ? { passEnvironment: options.passEnvironment } : {}),
      ...(options.shellPolicy ? { shellPolicy: options.shellPolicy } : {}),
    });
  }

  folderOf(name: string): string {
    return join(this.options.directory, name);
  }

  /** Registers the tools of installed skills; a broken skill is skipped, never fatal. */
  loadInstalledSync(): void {
    if (!existsSync(this.options.directory)) return;
    for (const name of readdirSync(this.options.directory)) {
      if (!SKILL_NAME_PATTERN.test(name)) continue;
      try {
        const manifest = parseSkillManifest(
          readFileSync(join(this.folderOf(name), 'SKILL.md'), 'utf8'),
        );
        if (manifest.name === name) this.adapter.register(manifest, this.folderOf(name));
      } catch {
        // A skill that cannot be loaded is reported by skill_list, not at start-up.
      }
    }
  }

  async installed(): Promise<{ skills: InstalledSkill[]; broken: string[] }> {
    let names: string[];
    try {
      names = await readdir(this.options.directory);
    } catch {
      return { skills: [], broken: [] };
    }
    const skills: InstalledSkill[] = [];
    const broken: string[] = [];
    for (const name of names.sort()) {
      if (!SKILL_NAME_PATTERN.test(name)) continue;
      try {
        const text = await readFile(join(this.folderOf(name), 'SKILL.md'), 'utf8');
        skills.push({ manifest: parseSkillManifest(text), folder: this.folderOf(name) });
      } catch {
        broken.push(name);
      }
    }
    return { skills, broken };
  }

  async stagingDirectory(): Promise<string> {
    const staging = join(this.options.directory, '.staging', randomBytes(6).toString('hex'));
    await mkdir(staging, { recursive: true });
    return staging;
  }

  /**
   * Moves a staged skill into place and registers its tools. Refuses an installed name without
   * `overwrite`, and tool ids owned by someone else.
   */
  async commit(manifest: SkillManifest, stagedRoot: string, overwrite: boolean): Promise<string[]> {
    const target = this.folderOf(manifest.name);
    const exists = await stat(target).then(
      () => true,
      () => false,
    );
    if (exists && !overwrite) {
      throw new ToolError(
        ToolErrorCode.INVALID_ARGUMENT,
        `overwrite: skill "${manifest.name}" is already installed.`,
        { field: 'overwrite', hint: 'Pass overwrite=true to replace it, or uninstall it first.' },
      );
    }
    const conflicts = this.adapter.conflicts(manifest);
    if (conflicts.length > 0) {
      throw new ToolError(
        ToolErrorCode.PERMISSION_DENIED,
        `Skill "${manifest.name}" declares tool ids that already exist: ${conflicts.join(', ')}.`,
        { hint: 'Rename the tools in its SKILL.md, or uninstall the skill that owns them.' },
      );
    }
    if (exists) {
      this.adapter.unregister(manifest.name);
      await rm(target, { recursive: true, force: true });
    }
    await rename(stagedRoot, target);
    return this.adapter.register(manifest, target);
  }

  async catalogEntries(): Promise<CatalogEntry[]> {
    const entries: CatalogEntry[] = [];
    for (const catalog of this.options.catalogs ?? []) {
      const info = await stat(catalog).catch(() => undefined);
      if (!info) continue;
      if (info.isDirectory()) {
        for (const name of (await readdir(catalog).catch(() => [])).sort()) {
          const folder = join(catalog, name);
          const text = await readFile(join(folder, 'SKILL.md'), 'utf8').catch(() => undefined);
          if (text === undefined) continue;
          try {
            const manifest = parseSkillManifest(text);
            entries.push({
              name: manifest.name,
              description: manifest.description,
              source: folder,
            });
          } catch {
            // An invalid skill in a catalog folder is not offered.
          }
        }
        continue;
      }
      try {
        const parsed: unknown = JSON.parse(await readFile(catalog, 'utf8'));
        const list = Array.isArray(parsed)
          ? parsed
          : ((parsed as { skills?: unknown } | null)?.skills ?? []);
        if (!Array.isArray(list)) continue;
        for (const item of list) {
          const entry = item as Partial<CatalogEntry> | null;
          if (typeof entry?.name !== 'string' || typeof entry.source !== 'string') continue;
          const source =
            isAbsolute(entry.source) || !/^[./]/.test(entry.source)
              ? entry.source
              : resolve(dirname(catalog), entry.source);
          entries.push({
            name: entry.name,
            description: typeof entry.description === 'string' ? entry.description : '',
            source,
          });
        }
      } catch {
        // An unreadable catalog index is skipped.
      }
    }
    return entries;
  }
}

// ---------------------------------------------------------------------------------------------
// Staging sources

type SourceKind = 'folder' | 'tarball' | 'npm';

async function stageSource(
  store: SkillStore,
  source: string,
  staging: string,
  signal: AbortSignal,
): Promise<{ root: string; kind: SourceKind }> {
  const trimmed = source.trim();
  if (trimmed.startsWith('npm:')) {
    return { root: await stageNpm(store, trimmed.slice(4), staging, signal), kind: 'npm' };
  }
  const path = resolve(store.options.workspaceRoot, trimmed);
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory()) {
    // Find SKILL.md first, so a wrong folder (even "/") is refused before anything is copied.
    const skillRoot = await findSkillRoot(path);
    const copy = join(staging, 'folder');
    let total = 0;
    await cp(skillRoot, copy, {
      recursive: true,
      filter: async (from) => {
        if (basename(from) === '.git') return false;
        const entry = await lstat(from);
        if (entry.isSymbolicLink()) return false;
        total += entry.isFile() ? entry.size : 0;
        if (total > MAX_EXTRACTED_BYTES) {
          throw new ToolError(
            ToolErrorCode.INVALID_ARGUMENT,
            `source: the skill folder holds more than ${MAX_EXTRACTED_BYTES} bytes.`,
            { field: 'source' },
          );
        }
        return true;
      },
    });
    return { root: copy, kind: 'folder' };
  }
  if (info?.isFile() && /\.(tgz|tar\.gz|tar)$/i.test(trimmed)) {
    return { root: await extractTarball(path, join(staging, 'tarball')), kind: 'tarball' };
  }
  if (!info && NPM_NAME.test(trimmed) && !/\.(tgz|tar\.gz|tar)$/i.test(trimmed)) {
    return { root: await stageNpm(store, trimmed, staging, signal), kind: 'npm' };
  }
  throw new ToolError(
    ToolErrorCode.NOT_FOUND,
    `source: "${source}" is not a skill folder, a .tgz file or an npm package name.`,
    {
      field: 'source',
      hint: 'Give a folder containing SKILL.md, a .tgz of one, or an npm package name (find skills with skill_search).',
    },
  );
}

async function extractTarball(file: string, into: string): Promise<string> {
  await mkdir(into, { recursive: true });
  let total = 0;
  let tooLarge = false;
  try {
    await tar().extract({
      file,
      cwd: into,
      strict: true,
      filter: (_path: string, entry: ReadEntry | { size: number }) => {
        const type = (entry as ReadEntry).type;
        // Links could point outside the skill folder; skills need plain files only.
        if (type !== 'File' && type !== 'OldFile' && type !== 'Directory') return false;
        total += entry.size ?? 0;
        if (total > MAX_EXTRACTED_BYTES) tooLarge = true;
        return !tooLarge;
      },
    });
  } catch (error) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: the archive cannot be extracted (${(error as Error).message}).`,
      { field: 'source', hint: 'Give a valid .tgz of a skill folder.' },
    );
  }
  if (tooLarge) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: the archive holds more than ${MAX_EXTRACTED_BYTES} bytes.`,
      { field: 'source' },
    );
  }
  return into;
}

async function stageNpm(
  store: SkillStore,
  spec: string,
  staging: string,
  signal: AbortSignal,
): Promise<string> {
  if (!NPM_NAME.test(spec)) {
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: "${spec}" is not a valid npm package name.`,
      { field: 'source', hint: 'Use a name such as "my-skill" or "@scope/my-skill@1.2.0".' },
    );
  }
  if (store.options.allowNpm === false) {
    throw new ToolError(
      ToolErrorCode.UNSUPPORTED,
      'Installing skills from npm is disabled in this deployment.',
      { hint: 'Install from a local folder or .tgz instead.' },
    );
  }
  const packDirectory = join(staging, 'npm-pack');
  await mkdir(packDirectory, { recursive: true });
  const output = await new Promise<string>((resolvePromise, reject) => {
    execFile(
      store.options.npmCommand ?? 'npm',
      ['pack', spec, '--pack-destination', packDirectory, '--json', '--ignore-scripts'],
      { timeout: NPM_TIMEOUT_MS, signal, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) {
          const reason = String(stderr)
            .split('\n')
            .find((line) => /ERR|error/i.test(line));
          reject(
            new ToolError(
              ToolErrorCode.EXECUTION_FAILED,
              `npm pack ${spec} failed${reason ? `: ${reason.trim()}` : '.'}`,
              { retryable: false, hint: 'Check the package name with skill_search.' },
            ),
          );
          return;
        }
        resolvePromise(String(stdout));
      },
    );
  });
  let filename: string | undefined;
  try {
    filename = (JSON.parse(output) as Array<{ filename?: string }>)[0]?.filename;
  } catch {
    filename = undefined;
  }
  const tarballs = filename
    ? [filename]
    : (await readdir(packDirectory)).filter((name) => name.endsWith('.tgz'));
  const tarball = tarballs[0];
  if (!tarball) {
    throw new ToolError(ToolErrorCode.EXECUTION_FAILED, `npm pack ${spec} produced no archive.`, {
      retryable: false,
    });
  }
  return extractTarball(join(packDirectory, tarball.replace(/^.*[\\/]/, '')), join(staging, 'npm'));
}

/** The folder holding SKILL.md: the root itself or its single top-level folder (npm's `package/`). */
async function findSkillRoot(root: string): Promise<string> {
  if (await isFile(join(root, 'SKILL.md'))) return root;
  const entries = await readdir(root, { withFileTypes: true });
  const folders = entries.filter((entry) => entry.isDirectory());
  if (folders.length === 1 && folders[0]) {
    const inner = join(root, folders[0].name);
    if (await isFile(join(inner, 'SKILL.md'))) return inner;
  }
  throw new ToolError(
    ToolErrorCode.INVALID_ARGUMENT,
    'source: no SKILL.md at the top of the skill (or of its single top-level folder).',
    { field: 'source', hint: 'A skill is a folder with a SKILL.md file; check the source.' },
  );
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

async function readManifest(root: string): Promise<SkillManifest> {
  const text = await readFile(join(root, 'SKILL.md'), 'utf8');
  try {
    return parseSkillManifest(text);
  } catch (error) {
    if (!isToolError(error)) throw error;
    throw new ToolError(
      ToolErrorCode.INVALID_ARGUMENT,
      `source: its SKILL.md is invalid: ${error.message}`,
      { field: 'source', hint: error.options.hint ?? 'Fix SKILL.md and retry.' },
    );
  }
}

function describeTools(ids: readonly string[]): string {
  return ids.length > 0 ? `tools: ${ids.join(', ')}` : 'no tools';
}

// ---------------------------------------------------------------------------------------------
// Tools

const skillNameField = z
  .string()
  .regex(SKILL_NAME_PATTERN, 'lower-case letters, digits and single hyphens, at most 64')
  .refine((name) => !name.endsWith('-'), 'must not end with a hyphen');

function createSkillSearchTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_search',
    description:
      'Searches installed skills and the configured skill catalogs by name and description. Returns each match with whether it is installed and the source to pass to skill_install. Use skill_list to see only installed skills with their tools.',
    inputSchema: ToolSchema.object({
      query: z
        .string()
        .trim()
        .max(200)
        .default('')
        .describe('Words to look for (every word must match); empty lists everything.'),
      limit: z.number().int().min(1).max(50).default(10).describe('Most results (1-50).'),
    }),
    outputSchema: ToolSchema.object({
      results: z.array(
        z.object({
          name: z.string(),
          description: z.string(),
          installed: z.boolean(),
          source: z.string().optional(),
        }),
      ),
      total: z.number(),
    }),
    metadata: {
      category: 'skill',
      risk: 'LOW',
      tags: ['skills'],
      annotations: { ...ToolHints.readOnly, openWorldHint: true },
    },
    runPolicy: RunPolicies.quickRead,
    async execute({ query, limit }) {
      const { skills } = await store.installed();
      const installedNames = new Set(skills.map((skill) => skill.manifest.name));
      const candidates: Array<{
        name: string;
        description: string;
        installed: boolean;
        source?: string;
      }> = [
        ...skills.map((skill) => ({
          name: skill.manifest.name,
          description: skill.manifest.description,
          installed: true,
        })),
        ...(await store.catalogEntries())
          .filter((entry) => !installedNames.has(entry.name))
          .map((entry) => ({ ...entry, installed: false })),
      ];
      const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
      const matches = candidates.filter((candidate) => {
        const text = `${candidate.name} ${candidate.description}`.toLowerCase();
        return terms.every((term) => text.includes(term));
      });
      const shown = matches.slice(0, limit);
      if (shown.length === 0) {
        return successResult(
          query ? `No skills match "${query}".` : 'No skills are installed or in any catalog.',
          { data: { results: [], total: 0 } },
        );
      }
      const lines = shown.map((skill) =>
        skill.installed
          ? `- ${skill.name} (installed): ${skill.description}`
          : `- ${skill.name}: ${skill.description}\n  install: skill_install {"source": ${JSON.stringify(skill.source ?? '')}}`,
      );
      return successResult(`${matches.length} skill(s):\n${lines.join('\n')}`, {
        data: { results: shown, total: matches.length },
      });
    },
  });
}

function createSkillInstallTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_install',
    description:
      'Installs a skill (a folder with SKILL.md in the Agent Skills format) from a local folder, a .tgz archive or an npm package name ("npm:<name>" or a bare name), and registers the tools it declares so they can be called at once. Skill tools run shell commands under the shell permission rules. Find skills with skill_search.',
    inputSchema: ToolSchema.object({
      source: z
        .string()
        .trim()
        .min(1)
        .max(1_000)
        .describe(
          'A folder (relative to the workspace, or absolute), a .tgz file, or an npm package ("npm:my-skill", "@scope/skill@1.0.0").',
        ),
      overwrite: z
        .boolean()
        .default(false)
        .describe('Replace an installed skill of the same name.'),
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
        const tools = await store.commit(manifest, root, overwrite);
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

const toolSpecField = z.looseObject({
  name: z.string().describe('Tool id, e.g. "count_lines" (lower-case, digits, "_").'),
  description: z.string().describe('What the tool does, for the model.'),
  input_schema: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('JSON Schema of the arguments: {"type":"object","properties":{…},"required":[…]}.'),
  command: z
    .string()
    .describe(
      'Command line run by bash in the workspace; {{arg}} becomes the quoted argument, {{skill_dir}} the skill folder. Placeholders must be outside quotes.',
    ),
  timeout_ms: z.number().int().optional().describe('Time limit in ms (default 30000).'),
  risk: z.enum(['LOW', 'MEDIUM', 'HIGH']).optional().describe('Risk level (default MEDIUM).'),
  read_only: z.boolean().optional().describe('Whether the command only reads.'),
});

function createSkillCreateTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_create',
    description:
      'Creates and installs a new skill: writes SKILL.md (name, description, instructions, declared tools) and optional script or reference files into a new skill folder, then registers its tools. Use skill_install for existing skills.',
    inputSchema: ToolSchema.object({
      name: skillNameField.describe('Skill name: lower-case letters, digits and hyphens.'),
      description: z
        .string()
        .trim()
        .min(1)
        .max(1024)
        .describe('What the skill does and when to use it.'),
      instructions: z
        .string()
        .max(100_000)
        .default('')
        .describe('Markdown instructions for the model (the body of SKILL.md).'),
      tools: z.array(toolSpecField).max(20).default([]).describe('Tools the skill declares.'),
      files: z
        .record(z.string(), z.string().max(MAX_CREATED_FILE_LENGTH))
        .optional()
        .describe('Extra files by relative path, e.g. {"scripts/run.sh": "…"} (at most 50).'),
      overwrite: z.boolean().default(false).describe('Replace a skill of the same name.'),
    }),
    outputSchema: ToolSchema.object({ name: z.string(), tools: z.array(z.string()) }),
    metadata: {
      category: 'skill',
      risk: 'MEDIUM',
      tags: ['skills'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ name, description, instructions, tools, files, overwrite }) {
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
        const registered = await store.commit(manifest, root, overwrite);
        return successResult(`Created skill "${name}" (${describeTools(registered)}).`, {
          data: { name, tools: registered },
        });
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  });
}

function createSkillListTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_list',
    description:
      'Lists the installed skills with their descriptions and the tools each one registered. Use skill_search to find skills to install.',
    inputSchema: ToolSchema.empty(),
    outputSchema: ToolSchema.object({
      skills: z.array(
        z.object({ name: z.string(), description: z.string(), tools: z.array(z.string()) }),
      ),
      broken: z.array(z.string()),
    }),
    metadata: {
      category: 'skill',
      risk: 'LOW',
      tags: ['skills'],
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    async execute() {
      const { skills, broken } = await store.installed();
      const listed = skills.map(({ manifest }) => ({
        name: manifest.name,
        description: manifest.description,
        tools: [...store.adapter.toolIds(manifest.name)],
      }));
      const lines = listed.map(
        (skill) => `- ${skill.name} (${describeTools(skill.tools)}): ${skill.description}`,
      );
      for (const name of broken) lines.push(`- ${name}: broken (SKILL.md missing or invalid)`);
      const text =
        lines.length > 0
          ? `${listed.length} skill(s) installed:\n${lines.join('\n')}`
          : 'No skills are installed. Find some with skill_search, or make one with skill_create.';
      return successResult(text, { data: { skills: listed, broken } });
    },
  });
}

function createSkillUninstallTool(store: SkillStore): AnyToolDefinition {
  return defineTool({
    id: 'skill_uninstall',
    description:
      'Uninstalls a skill: unregisters its tools and deletes its folder. It cannot be undone (install it again to restore it).',
    inputSchema: ToolSchema.object({
      name: skillNameField.describe('Name of the installed skill (see skill_list).'),
    }),
    outputSchema: ToolSchema.object({ name: z.string(), removedTools: z.array(z.string()) }),
    metadata: {
      category: 'skill',
      risk: 'MEDIUM',
      tags: ['skills'],
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ name }) {
      const folder = store.folderOf(name);
      if (!(await isFile(join(folder, 'SKILL.md'))) && !existsSync(folder)) {
        return failureResult(ToolErrorCode.NOT_FOUND, `Skill "${name}" is not installed.`, {
          field: 'name',
          hint: 'Call skill_list to see the installed skills.',
        });
      }
      const removedTools = store.adapter.unregister(name);
      await rm(folder, { recursive: true, force: true });
      return successResult(
        `Uninstalled skill "${name}" (removed ${describeTools(removedTools)}).`,
        {
          data: { name, removedTools },
        },
      );
    },
  });
}
