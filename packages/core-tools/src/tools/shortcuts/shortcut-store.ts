import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { definerDigest, LOCAL_DEFINER } from '../defined-by.js';
import type { ShortcutDefinition } from './shortcut-definition.js';

/** A persisted definition file that could not be read, and why. */
export interface ShortcutLoadProblem {
  readonly file: string;
  readonly problem: string;
}

/** A persisted definition as raw JSON (validated by the caller) and who defined it. */
export interface StoredShortcut {
  /** The definition's JSON, `definedBy` removed. */
  readonly definition: unknown;
  /** The principal key of its definer; `local` for files written before definers were recorded. */
  readonly definedBy: string;
}

/**
 * Persists shortcut definitions as one JSON file each in a directory, so defined shortcuts
 * survive restarts. Each file records its definer (`definedBy`, a principal key); the `local`
 * principal's file is `<id>.json`, another principal's `<id>~<digest of its key>.json`, so two
 * principals' shortcuts of one id never share a file. Writes are atomic (temp file + rename).
 */
export class ShortcutStore {
  /** The directory definitions live in. */
  readonly directory: string;

  constructor(directory: string) {
    this.directory = directory;
  }

  /** Saves (or replaces) `definedBy`'s definition. */
  save(definition: ShortcutDefinition, definedBy: string): void {
    mkdirSync(this.directory, { recursive: true });
    const file = this.#fileOf(definition.id, definedBy);
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify({ ...definition, definedBy }, null, 2)}\n`, 'utf8');
    renameSync(temporary, file);
  }

  /** Deletes `definedBy`'s definition; returns whether it existed. */
  remove(id: string, definedBy: string): boolean {
    try {
      rmSync(this.#fileOf(id, definedBy));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Reads every persisted definition with its definer. A missing directory is empty; unreadable
   * files are reported, never thrown.
   */
  loadRaw(): { definitions: StoredShortcut[]; problems: ShortcutLoadProblem[] } {
    const definitions: StoredShortcut[] = [];
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
        const parsed: unknown = JSON.parse(readFileSync(join(this.directory, name), 'utf8'));
        const { definedBy, ...definition } = (parsed ?? {}) as { definedBy?: unknown };
        const definer = typeof definedBy === 'string' ? definedBy : LOCAL_DEFINER;
        // A file whose name does not match its recorded definer was not written here.
        if (name !== `${(definition as { id?: unknown }).id}${this.#suffixOf(definer)}.json`) {
          problems.push({ file: name, problem: 'its name does not match its id and definer' });
          continue;
        }
        definitions.push({ definition, definedBy: definer });
      } catch (error) {
        problems.push({ file: name, problem: (error as Error).message });
      }
    }
    return { definitions, problems };
  }

  #suffixOf(definedBy: string): string {
    return definedBy === LOCAL_DEFINER ? '' : `~${definerDigest(definedBy)}`;
  }

  #fileOf(id: string, definedBy: string): string {
    return join(this.directory, `${id}${this.#suffixOf(definedBy)}.json`);
  }
}
