// What the file tools share: the path and limit fields of their schemas, their metadata, size
// limits used by more than one tool, and the hint helper.
import type { ToolAnnotations, ToolMetadataInput, ToolRisk } from '@toolsys/core-tool-registry';
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

/** The `limit` argument of a listing tool: at most this many `noun` (1-5000), default 500. */
export const listLimitField = (noun: string) =>
  z.number().int().min(1).max(5_000).default(500).describe(`Most ${noun}.`);

/** The metadata of a file tool: category `file` with the risk, tags and hints it declares. */
export function fileToolMetadata(
  risk: ToolRisk,
  tags: readonly string[],
  annotations: ToolAnnotations,
): ToolMetadataInput {
  return { category: 'file', risk, tags, annotations };
}

/** The `hint` field of a failure result. */
export function hint(hintText: string) {
  return { hint: hintText };
}
