/** A list cursor: the position after the last task of a page (creation time, then id). */
export function encodeTaskCursor(createdAt: number, taskId: string): string {
  return Buffer.from(JSON.stringify([createdAt, taskId])).toString('base64url');
}

/** The position a cursor names, or undefined when it was not made by {@link encodeTaskCursor}. */
export function decodeTaskCursor(
  cursor: string,
): { createdAt: number; taskId: string } | undefined {
  if (cursor.length > 200) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      Number.isSafeInteger(parsed[0]) &&
      typeof parsed[1] === 'string'
    ) {
      return { createdAt: parsed[0] as number, taskId: parsed[1] };
    }
  } catch {
    // Not one of ours.
  }
  return undefined;
}
