import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ShortcutDefinition } from './shortcut-definition.js';

/** A persisted definition file that could not be read, and why. */
export interface ShortcutLoadProblem {
  readonly file: string;
  readonly problem: string;
}

/**
 * Persists shortcut definitions as one JSON file each (`<id>.json`) in a directory, so defined
 * shortcuts survive restarts. Writes are atomic (temp file + rename).
 */
export class ShortcutStore {
  /** The directory definitions live in. */
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** Saves (or replaces) a definition. */
  save(definition: ShortcutDefinition): void {
    mkdirSync(this.directory, { recursive: true });
    const file = join(this.directory, `${definition.id}.json`);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(definition, null, 2)}\n`, 'utf8');
    renameSync(temporary, file);
  }

  /** Deletes a definition; returns whether it existed. */
  remove(id: string): boolean {
    const file = join(this.directory, `${id}.json`);
    try {
      rmSync(file);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads every persisted definition as raw JSON (validated by the caller). A missing directory is
   * empty; unreadable files are reported, never thrown.
   */
  loadRaw(): { definitions: unknown[]; problems: ShortcutLoadProblem[] } {
    const definitions: unknown[] = [];
    const problems: ShortcutLoadProblem[] = [];
    let names: string[];
    try {
      names = readdirSync(this.directory)
        .filter((name) => name.endsWith('.json'))
        .sort();
    } catch {
      return { definitions, problems };
    }
    for (const name of names) {
      try {
        definitions.push(JSON.parse(readFileSync(join(this.directory, name), 'utf8')));
      } catch (error) {
        problems.push({ file: name, problem: (error as Error).message });
      }
    }
    return { definitions, problems };
  }
}
