// The skills directory: loading, listing, committing staged skills and the catalog.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { ToolError, ToolErrorCode } from '@toolsys/core-tool-registry';
import { definerDigest, LOCAL_DEFINER } from '../defined-by.js';
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

/** The folder of the principals' own skill folders, beside the `local` principal's skills. */
const PRINCIPALS_FOLDER = '.principals';
/** The file in a principal's folder naming its principal key. */
const DEFINER_FILE = 'principal.json';

/**
 * The installed skills on disk and the registry their tools are registered in. Skills belong to
 * the principal that installed or created them: the `local` principal's live in
 * `<directory>/<name>` (as every skill did before skills had owners), another principal's in
 * `<directory>/.principals/<digest of its key>/<name>`, beside a `principal.json` naming the key.
 * The owner is read from where a skill lies, never from the skill's own files.
 */
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

  /** The folder holding `definedBy`'s skills. */
  rootOf(definedBy: string): string {
    return definedBy === LOCAL_DEFINER
      ? this.options.directory
      : join(this.options.directory, PRINCIPALS_FOLDER, definerDigest(definedBy));
  }

  /** The folder of `definedBy`'s skill `name`. */
  folderOf(name: string, definedBy: string): string {
    return join(this.rootOf(definedBy), name);
  }

  /** Registers the tools of every principal's installed skills; a broken skill is skipped, never fatal. */
  loadInstalledSync(): void {
    if (!existsSync(this.options.directory)) return;
    this.#loadRootSync(LOCAL_DEFINER);
    const principals = join(this.options.directory, PRINCIPALS_FOLDER);
    if (!existsSync(principals)) return;
    for (const digest of readdirSync(principals)) {
      try {
        const { definedBy } = JSON.parse(
          readFileSync(join(principals, digest, DEFINER_FILE), 'utf8'),
        ) as { definedBy?: unknown };
        if (typeof definedBy === 'string' && definerDigest(definedBy) === digest) {
          this.#loadRootSync(definedBy);
        }
      } catch {
        // A folder without its principal file was not written here: its skills stay unloaded.
      }
    }
  }

  #loadRootSync(definedBy: string): void {
    for (const name of readdirSync(this.rootOf(definedBy))) {
      if (!SKILL_NAME_PATTERN.test(name)) continue;
      try {
        const folder = this.folderOf(name, definedBy);
        const manifest = parseSkillManifest(readFileSync(join(folder, 'SKILL.md'), 'utf8'));
        if (manifest.name === name) this.adapter.register(manifest, folder, definedBy);
      } catch {
        // A skill that cannot be loaded is reported by skill_list, not at start-up.
      }
    }
  }

  /** `definedBy`'s installed skills, and the names of its broken ones. */
  async installed(definedBy: string): Promise<{ skills: InstalledSkill[]; broken: string[] }> {
    let names: string[];
    try {
      names = await readdir(this.rootOf(definedBy));
    } catch {
      return { skills: [], broken: [] };
    }
    const skills: InstalledSkill[] = [];
    const broken: string[] = [];
    for (const name of names.sort()) {
      if (!SKILL_NAME_PATTERN.test(name)) continue;
      try {
        const folder = this.folderOf(name, definedBy);
        const text = await readFile(join(folder, 'SKILL.md'), 'utf8');
        skills.push({ manifest: parseSkillManifest(text), folder });
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
   * Moves a staged skill into `definedBy`'s folder and registers its tools for that principal.
   * Refuses a name it already installed without `overwrite`, and tool ids it already sees from
   * elsewhere (a built-in tool, its other skills).
   */
  async commit(
    manifest: SkillManifest,
    stagedRoot: string,
    overwrite: boolean,
    definedBy: string,
  ): Promise<string[]> {
    const target = this.folderOf(manifest.name, definedBy);
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
    const conflicts = this.adapter.conflicts(manifest, definedBy);
    if (conflicts.length > 0) {
      throw new ToolError(
        ToolErrorCode.PERMISSION_DENIED,
        `Skill "${manifest.name}" declares tool ids that already exist: ${conflicts.join(', ')}.`,
        { hint: 'Rename the tools in its SKILL.md, or uninstall the skill that owns them.' },
      );
    }
    if (exists) {
      this.adapter.unregister(manifest.name, definedBy);
      await rm(target, { recursive: true, force: true });
    }
    if (definedBy !== LOCAL_DEFINER) {
      await mkdir(this.rootOf(definedBy), { recursive: true });
      await writeFile(join(this.rootOf(definedBy), DEFINER_FILE), JSON.stringify({ definedBy }));
    }
    await rename(stagedRoot, target);
    return this.adapter.register(manifest, target, definedBy);
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
