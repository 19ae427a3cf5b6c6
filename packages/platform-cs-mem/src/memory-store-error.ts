/** Why a {@link MemoryStoreError} was raised. */
export type MemoryStoreErrorCode =
  /** A search query the full-text engine rejects (FTS5 syntax), or a bad filter value. */
  | 'INVALID_QUERY'
  /** A write with a missing or malformed field (empty id, unknown node in a link). */
  | 'INVALID_INPUT'
  /** The node, alias or macro named does not exist. */
  | 'NOT_FOUND'
  /** The database was written by a newer release with a schema this code does not know. */
  | 'SCHEMA_TOO_NEW';

/**
 * An expected failure of the memory store: bad input or a query the engine rejects. The tools turn
 * `INVALID_QUERY` and `INVALID_INPUT` into INVALID_ARGUMENT; anything else thrown by SQLite is an
 * execution failure.
 */
export class MemoryStoreError extends Error {
  /** Why it failed. */
  readonly code: MemoryStoreErrorCode;
  /** The input field at fault, when one is (`query`, `id`). */
  readonly field: string | undefined;

  constructor(
    code: MemoryStoreErrorCode,
    message: string,
    options: { field?: string; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'MemoryStoreError';
    this.code = code;
    this.field = options.field;
  }
}
