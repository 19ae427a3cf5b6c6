// The notes on disk: one Markdown file with YAML front matter per key, written atomically under a
// per-key file lock.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { type CallPrincipal, principalDigest } from '@toolsys/core-tool-registry';
import { lazyModule, withFileLock, writeFileAtomic } from '@toolsys/platform';
import { type FileMemoryToolsOptions, KEY_PATTERN } from './shared.js';

const yaml = lazyModule<typeof import('yaml')>('yaml', import.meta.url);

/** A note as stored: Markdown with YAML front matter. */
export interface Note {
  key: string;
  tags: string[];
  created: string;
  updated: string;
  content: string;
}

const DEFAULT_MAX_NOTE_LENGTH = 256_000;

/** Reads, writes, lists and removes the notes of one folder. */
export class NoteStore {
  readonly directory: string;
  readonly maxNoteLength: number;
  readonly #now: () => number;

  constructor(options: FileMemoryToolsOptions) {
    this.directory = options.directory;
    this.maxNoteLength = options.maxNoteLength ?? DEFAULT_MAX_NOTE_LENGTH;
    this.#now = options.now ?? Date.now;
  }

  now(): string {
    return new Date(this.#now()).toISOString();
  }

  fileOf(key: string): string {
    return join(this.directory, `${key}.md`);
  }

  async read(key: string): Promise<Note | undefined> {
    let text: string;
    try {
      text = await readFile(this.fileOf(key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    return parseNote(key, text);
  }

  async write(note: Note): Promise<void> {
    await mkdir(this.directory, { recursive: true });
    await writeFileAtomic(this.fileOf(note.key), renderNote(note));
  }

  /**
   * Runs a read-modify-write of one note as its only writer (in this process and in any other
   * sharing the folder), so concurrent appends and replaces never drop each other's update.
   */
  async update<T>(key: string, work: () => Promise<T>): Promise<T> {
    await mkdir(this.directory, { recursive: true });
    return withFileLock(join(this.directory, `.${key}.md.lock`), work);
  }

  async remove(key: string): Promise<boolean> {
    const existing = await this.read(key);
    if (!existing) return false;
    await rm(this.fileOf(key), { force: true });
    return true;
  }

  async all(): Promise<Note[]> {
    let names: string[];
    try {
      names = await readdir(this.directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    const notes: Note[] = [];
    for (const name of names) {
      if (!name.endsWith('.md')) continue;
      const key = name.slice(0, -3);
      if (!KEY_PATTERN.test(key)) continue;
      const note = await this.read(key).catch(() => undefined);
      if (note) notes.push(note);
    }
    return notes.sort((a, b) => b.updated.localeCompare(a.updated) || a.key.localeCompare(b.key));
  }
}

/**
 * The note stores of a deployment: one per principal (in `principals/<digest>` under the
 * directory, named by a digest of the principal, never its id; the local user keeps the directory
 * itself, where notes were kept before principals existed), or one for everyone when `shared`.
 */
export class NoteStores {
  readonly #options: FileMemoryToolsOptions;
  readonly #common: NoteStore;
  readonly #byPrincipal = new Map<string, NoteStore>();

  constructor(options: FileMemoryToolsOptions) {
    this.#options = options;
    this.#common = new NoteStore(options);
  }

  /** The store of the caller `principal` (absent: the local user). */
  for(principal: CallPrincipal | undefined): NoteStore {
    if (this.#options.shared === true || principal === undefined || principal.kind === 'local') {
      return this.#common;
    }
    const digest = principalDigest(principal);
    let store = this.#byPrincipal.get(digest);
    if (!store) {
      const directory = join(this.#options.directory, PRINCIPALS_FOLDER, digest);
      store = new NoteStore({ ...this.#options, directory });
      this.#byPrincipal.set(digest, store);
    }
    return store;
  }
}

/** The folder under the notes directory that holds one folder per principal. */
const PRINCIPALS_FOLDER = 'principals';

function renderNote(note: Note): string {
  const front = yaml()
    .stringify({
      key: note.key,
      tags: note.tags,
      created: note.created,
      updated: note.updated,
    })
    .trimEnd();
  return `---\n${front}\n---\n\n${note.content}\n`;
}

/** Parses a note file; a hand-written file without front matter is read as plain content. */
function parseNote(key: string, text: string): Note {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  let meta: Record<string, unknown> = {};
  let body = text;
  if (match) {
    try {
      const parsed = yaml().parse(match[1] ?? '');
      if (parsed && typeof parsed === 'object') meta = parsed as Record<string, unknown>;
      body = text.slice(match[0].length);
    } catch {
      meta = {};
    }
  }
  const tags = Array.isArray(meta.tags) ? meta.tags.map((tag) => String(tag).toLowerCase()) : [];
  const stamp = (value: unknown) =>
    value instanceof Date ? value.toISOString() : typeof value === 'string' ? value : '';
  return {
    key,
    tags,
    created: stamp(meta.created),
    updated: stamp(meta.updated) || stamp(meta.created),
    content: body.replace(/^\r?\n/, '').replace(/\r?\n$/, ''),
  };
}
