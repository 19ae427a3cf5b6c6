import { z } from 'zod';

/** The `limits` section of `toolsys.config.json`. */
export const limitsConfigSchema = z
  .object({
    perPrincipal: z
      .object({
        callsPerMinute: z
          .number()
          .int()
          .min(1)
          .describe(
            'Calls one principal may make a minute, all tools together (batch steps included); past it a call gets RATE_LIMITED naming the principal and when to retry, and other principals are not affected.',
          ),
      })
      .strict()
      .optional()
      .describe(
        "Each principal's own quota, beside the per-tool limits of the run policies; shared by every replica through state.redis when it is configured.",
      ),
  })
  .strict()
  .optional()
  .describe('Quotas that apply across tools.');
