// The argument fields and limits that regex_extract and regex_replace share.
import { z } from 'zod';

/** Longest text a regex tool takes, in characters. */
export const MAX_TEXT_LENGTH = 5_000_000;
const MAX_PATTERN_LENGTH = 5_000;

/** The pattern and flags fields both regex tools take. */
export const patternFields = {
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH).describe('Regex without slashes.'),
  ignoreCase: z.boolean().default(false).describe('i flag.'),
  multiline: z.boolean().default(false).describe('m flag.'),
  dotAll: z.boolean().default(false).describe('s flag.'),
};
