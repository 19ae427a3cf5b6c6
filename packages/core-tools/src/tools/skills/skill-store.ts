// The skills directory: loading, listing, committing staged skills and the catalog.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import type { SkillToolsOptions } from './shared.js';
import { parseSkillManifest, SKILL_NAME_PATTERN, type SkillManifest } from './skill-manifest.js';
import { SkillToolAdapter } from './skill-tool-adapter.js';

/** A skill found on disk with the tools it registered. */
export interface InstalledSkill {
  readonly manifest: SkillManifest;
  readonly folder: string;
}

/** One entry of the skill catalog skill_search looks through. */
export interface CatalogEntry {
  readonly name: string;
  readonly description: string;
  readonly source: string;
}

/** The installed skills on disk and the registry their tools are registered in. */
export class SkillStore {
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
