// What the file tools share: the path field of their schemas, size limits used by more than one
// tool, and the hint helper.
import { z } from 'zod';

const MAX_PATH_LENGTH = 4_096;
/** Largest text read_file returns in one call, in bytes. */
export const MAX_READ_CAP = 4 * 1024 * 1024;
/** Default cap of the text read_file returns, in bytes. */
export const DEFAULT_READ_BYTES = 256 * 1024;
/** A NUL byte among the first this many bytes marks a file as binary. */
export const BINARY_SNIFF_BYTES = 8_192;

/** A workspace path argument, described for the model. */
export const pathField = (description: string) =>
  z.string().min(1).max(MAX_PATH_LENGTH).describe(description);

/** The `hint` field of a failure result. */
export function hint(hintText: string) {
  return { hint: hintText };
}
