import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type AnyToolDefinition,
  defineTool,
  failureResult,
  RunPolicies,
  successResult,
  ToolErrorCode,
  ToolHints,
  ToolSchema,
} from '@toolsys/core-tool-registry';
import { lazyModule, withFileLock, writeFileAtomic } from '@toolsys/platform';
import { z } from 'zod';

const yaml = lazyModule<typeof import('yaml')>('yaml');

/** Options for {@link createFileMemoryTools}. */
export interface FileMemoryToolsOptions {
  /** Directory the notes are kept in, one Markdown file per key; created on the first write. */
  directory: string;
  /** Largest note, in characters; 256 000 by default. */
  maxNoteLength?: number;
  /** Clock for the created/updated timestamps; `Date.now` by default. */
  now?: () => number;
}

/** A note as stored: Markdown with YAML front matter. */
interface Note {
  key: string;
  tags: string[];
  created: string;
  updated: string;
  content: string;
}

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const DEFAULT_MAX_NOTE_LENGTH = 256_000;
const SNIPPET_RADIUS = 80;

const keyField = z
  .string()
  .regex(
    KEY_PATTERN,
    'letters, digits, ".", "_" and "-" only, starting with a letter or digit, at most 128',
  )
  .refine((key) => !key.includes('..'), 'must not contain ".."')
  .describe('The note\'s key, e.g. "project-deadlines" (letters, digits, . _ -).');

const tagField = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^,\n\r]+$/, 'no commas or line breaks')
  .transform((tag) => tag.toLowerCase());

/** `memorize`, `recall` and `forget`: notes kept as Markdown files with front matter. */
export function createFileMemoryTools(options: FileMemoryToolsOptions): AnyToolDefinition[] {
  const store = new NoteStore(options);
  return [createMemorizeTool(store), createRecallTool(store), createForgetTool(store)];
}

class NoteStore {
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

// ---------------------------------------------------------------------------------------------

const memorizeSchema = ToolSchema.object({
  key: keyField,
  content: z.string().min(1).describe('The note itself, in Markdown.'),
  tags: z
    .array(tagField)
    .max(20)
    .optional()
    .describe('Labels to find the note by later, e.g. ["project-x", "deadline"]. Lower-cased.'),
  mode: z
    .enum(['replace', 'append'])
    .default('replace')
    .describe(
      'replace (default): the note becomes this content; append: the content is added to the end of an existing note.',
    ),
});

function createMemorizeTool(store: NoteStore): AnyToolDefinition {
  return defineTool({
    id: 'memorize',
    description:
      'Saves a note under a key, with optional tags, so it survives this conversation. Saving the same key again replaces the note (or appends with mode=append); tags given replace the old ones. Use recall to read notes and forget to delete them.',
    inputSchema: memorizeSchema,
    outputSchema: ToolSchema.object({
      key: z.string(),
      tags: z.array(z.string()),
      length: z.number(),
      created: z.boolean(),
    }),
    metadata: {
      category: 'memory',
      risk: 'LOW',
      tags: ['notes'],
      annotations: { ...ToolHints.mutating, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    execute: ({ key, content, tags, mode }) =>
      store.update(key, async () => {
        const existing = await store.read(key);
        const text = mode === 'append' && existing ? `${existing.content}\n\n${content}` : content;
        if (text.length > store.maxNoteLength) {
          return failureResult(
            ToolErrorCode.INVALID_ARGUMENT,
            `content: the note would be ${text.length} characters, more than the limit of ${store.maxNoteLength}.`,
            { field: 'content', hint: 'Shorten it or split it across several keys.' },
          );
        }
        const now = store.now();
        const note: Note = {
          key,
          tags: [...new Set(tags ?? existing?.tags ?? [])],
          created: existing?.created || now,
          updated: now,
          content: text,
        };
        await store.write(note);
        const verb = existing ? (mode === 'append' ? 'Appended to' : 'Updated') : 'Memorized';
        const tagText = note.tags.length > 0 ? `, tags: ${note.tags.join(', ')}` : '';
        return successResult(`${verb} note "${key}" (${text.length} characters${tagText}).`, {
          data: { key, tags: note.tags, length: text.length, created: !existing },
        });
      }),
  });
}

const recallSchema = ToolSchema.object({
  key: keyField.optional().describe('Return this note in full.'),
  tag: tagField.optional().describe('Only notes carrying this tag.'),
  query: z
    .string()
    .trim()
    .min(1)
    .max(500)
    .optional()
    .describe('Full-text search: notes containing every word (case-insensitive).'),
  limit: z.number().int().min(1).max(100).default(10).describe('Most notes listed (1-100).'),
});

function createRecallTool(store: NoteStore): AnyToolDefinition {
  return defineTool({
    id: 'recall',
    description:
      'Reads saved notes: by key (the full note), by tag, or by full-text query (every word must appear); with no arguments lists the most recently updated notes. Returns keys, tags and matching snippets; call again with key to read a note in full.',
    inputSchema: recallSchema,
    outputSchema: ToolSchema.object({
      notes: z.array(
        z.object({
          key: z.string(),
          tags: z.array(z.string()),
          updated: z.string(),
          content: z.string().optional(),
          snippet: z.string().optional(),
        }),
      ),
      total: z.number(),
    }),
    metadata: {
      category: 'memory',
      risk: 'LOW',
      tags: ['notes'],
      annotations: ToolHints.readOnly,
    },
    runPolicy: RunPolicies.quickRead,
    async execute({ key, tag, query, limit }) {
      if (key !== undefined) {
        const note = await store.read(key);
        if (!note || (tag !== undefined && !note.tags.includes(tag))) {
          const keys = (await store.all()).map((entry) => entry.key);
          return failureResult(ToolErrorCode.NOT_FOUND, `No note with key "${key}".`, {
            field: 'key',
            hint:
              keys.length > 0
                ? `Existing keys include: ${keys.slice(0, 10).join(', ')}. Or search with query.`
                : 'There are no notes yet; save one with memorize.',
          });
        }
        const tagText = note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : '';
        const updated = note.updated ? `\nUpdated: ${note.updated}` : '';
        return successResult(`# ${note.key}${tagText}${updated}\n\n${note.content}`, {
          data: { notes: [note], total: 1 },
        });
      }
      const terms = query ? query.toLowerCase().split(/\s+/).filter(Boolean) : [];
      const matches = (await store.all())
        .filter((note) => tag === undefined || note.tags.includes(tag))
        .map((note) => ({ note, score: scoreNote(note, terms) }))
        .filter(({ score }) => terms.length === 0 || score > 0);
      if (terms.length > 0) matches.sort((a, b) => b.score - a.score);
      const shown = matches.slice(0, limit).map(({ note }) => ({
        key: note.key,
        tags: note.tags,
        updated: note.updated,
        snippet: snippetOf(note.content, terms),
      }));
      if (shown.length === 0) {
        const filters = [tag ? `tag "${tag}"` : '', query ? `query "${query}"` : '']
          .filter(Boolean)
          .join(' and ');
        return successResult(
          filters
            ? `No notes match ${filters}.`
            : 'There are no notes yet; save one with memorize.',
          { data: { notes: [], total: 0 } },
        );
      }
      const lines = shown.map(
        (note) =>
          `- ${note.key}${note.tags.length > 0 ? ` [${note.tags.join(', ')}]` : ''}: ${note.snippet}`,
      );
      const more =
        matches.length > shown.length
          ? `\n(${matches.length - shown.length} more; raise limit or narrow the search.)`
          : '';
      return successResult(`${matches.length} note(s):\n${lines.join('\n')}${more}`, {
        data: { notes: shown, total: matches.length },
      });
    },
  });
}

/** Occurrences of the terms; 0 unless every term appears in the key, tags or content. */
function scoreNote(note: Note, terms: readonly string[]): number {
  if (terms.length === 0) return 1;
  const haystack = `${note.key}\n${note.tags.join(' ')}\n${note.content}`.toLowerCase();
  let score = 0;
  for (const term of terms) {
    let count = 0;
    for (
      let index = haystack.indexOf(term);
      index !== -1;
      index = haystack.indexOf(term, index + 1)
    )
      count += 1;
    if (count === 0) return 0;
    score += count;
  }
  return score;
}

function snippetOf(content: string, terms: readonly string[]): string {
  const lower = content.toLowerCase();
  const first = terms.map((term) => lower.indexOf(term)).find((index) => index >= 0) ?? 0;
  const start = Math.max(0, first - SNIPPET_RADIUS);
  const end = Math.min(content.length, first + SNIPPET_RADIUS);
  const text = content.slice(start, end).replace(/\s+/g, ' ').trim();
  return `${start > 0 ? '…' : ''}${text}${end < content.length ? '…' : ''}`;
}

const forgetSchema = ToolSchema.object({ key: keyField.describe('Key of the note to delete.') });

function createForgetTool(store: NoteStore): AnyToolDefinition {
  return defineTool({
    id: 'forget',
    description:
      'Deletes a saved note by key. It cannot be undone. Use recall first to check the key.',
    inputSchema: forgetSchema,
    metadata: {
      category: 'memory',
      risk: 'MEDIUM',
      tags: ['notes'],
      annotations: { ...ToolHints.destructive, idempotentHint: true },
    },
    runPolicy: RunPolicies.mutating,
    async execute({ key }) {
      const removed = await store.update(key, () => store.remove(key));
      if (!removed) {
        return failureResult(ToolErrorCode.NOT_FOUND, `No note with key "${key}".`, {
          field: 'key',
          hint: 'Call recall without arguments to list the keys.',
        });
      }
      return successResult(`Forgot note "${key}".`, { data: { key } });
    },
  });
}
