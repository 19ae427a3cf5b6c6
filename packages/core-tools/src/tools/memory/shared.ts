// What the memory tools share: their options and the key and tag fields of their schemas.
import { z } from 'zod';

/** Options for `createFileMemoryTools`. */
export interface FileMemoryToolsOptions {
  /** Directory the notes are kept in, one Markdown file per key; created on the first write. */
  directory: string;
  /** Largest note, in characters; 256 000 by default. */
  maxNoteLength?: number;
  /** Clock for the created/updated timestamps; `Date.now` by default. */
  now?: () => number;
  /**
   * Whether every caller shares one set of notes. Default false: each principal has its own, in
   * `principals/<digest of the principal>` under `directory` (the local user keeps `directory`
   * itself), so no caller reads or overwrites another's notes.
   */
  shared?: boolean;
}

/** What a note key may be: a safe file name of at most 128 characters. */
export const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The `key` argument: a note key, described for the model. */
export const keyField = z
  .string()
  .regex(
    KEY_PATTERN,
    'letters, digits, ".", "_" and "-" only, starting with a letter or digit, at most 128',
  )
  .refine((key) => !key.includes('..'), 'must not contain ".."')
  .describe('Note key.');

/** A tag argument: trimmed, lower-cased, no commas or line breaks. */
export const tagField = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[^,\n\r]+$/, 'no commas or line breaks')
  .transform((tag) => tag.toLowerCase());
