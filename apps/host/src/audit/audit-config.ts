import { z } from 'zod';
import { DEFAULT_AUDIT_MAX_BYTES_PER_DAY, DEFAULT_AUDIT_RETAIN_DAYS } from './audit-log.js';

/** The `audit` section of `toolsys.config.json`. */
export const auditConfigSchema = z
  .object({
    enabled: z
      .boolean()
      .optional()
      .describe('Write one JSON line per call to <dataDir>/audit/YYYY-MM-DD.jsonl. Default true.'),
    retainDays: z
      .number()
      .int()
      .min(1)
      .max(3650)
      .optional()
      .describe(
        `Days of audit files kept, today included; older ones are deleted. Default ${DEFAULT_AUDIT_RETAIN_DAYS}.`,
      ),
    maxBytesPerDay: z
      .number()
      .int()
      .min(16_384)
      .optional()
      .describe(
        `Byte cap of one day file, shared by every replica writing it; calls past it are not logged and one line says so. Default ${DEFAULT_AUDIT_MAX_BYTES_PER_DAY} (64 MiB).`,
      ),
  })
  .strict()
  .optional()
  .describe(
    'The audit log: who called which tool, what was decided and how it ended, with a digest of the arguments, never their values. Read it with `toolsys audit`.',
  );
