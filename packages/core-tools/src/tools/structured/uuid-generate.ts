// `uuid_generate`: random (v4) or time-ordered (v7) UUIDs.
import { randomBytes, randomUUID } from 'node:crypto';
import { type AnyToolDefinition, successResult, ToolSchema } from '@toolsys/core-tool-registry';
import { z } from 'zod';
import { defineStructuredTool } from './shared.js';

const uuidGenerateSchema = ToolSchema.object({
  version: z.enum(['v4', 'v7']).default('v4').describe('Version.'),
  count: z.number().int().min(1).max(1_000).default(1).describe('How many.'),
  uppercase: z.boolean().default(false).describe('Upper case.'),
});

/** The `uuid_generate` tool. */
export function createUuidGenerateTool(): AnyToolDefinition {
  return defineStructuredTool({
    id: 'uuid_generate',
    description: 'Generates UUIDs v4 (random) or v7 (time-ordered).',
    inputSchema: uuidGenerateSchema,
    outputSchema: ToolSchema.object({ version: z.enum(['v4', 'v7']), uuids: z.array(z.string()) }),
    tags: ['random', 'id'],
    idempotent: false,
    execute(args) {
      let uuids =
        args.version === 'v4'
          ? Array.from({ length: args.count }, () => randomUUID())
          : uuidV7Batch(args.count, Date.now());
      if (args.uppercase) uuids = uuids.map((uuid) => uuid.toUpperCase());
      return successResult(uuids.join('\n'), { data: { version: args.version, uuids } });
    },
  });
}

/** UUIDv7 (RFC 9562 §5.7): 48-bit ms timestamp, version, 74 random bits; sorted within a batch. */
function uuidV7Batch(count: number, now: number): string[] {
  const uuids = Array.from({ length: count }, () => {
    const bytes = randomBytes(16);
    bytes.writeUIntBE(now, 0, 6);
    bytes[6] = 0x70 | ((bytes[6] as number) & 0x0f);
    bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
    const hex = bytes.toString('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  });
  return uuids.sort();
}
