// The Lua script that revokes a permission grant atomically, and the revocations it logs and
// publishes, as replicas read them back.

/**
 * KEYS: the grant set (or session set) to change, the version counter, the revocation log. ARGV:
 * channel, kind (`always` | `session`), tool id (empty: the whole key), session id, log length,
 * log time to live in ms. Removes the grant, counts the revocation, logs it (newest first, capped)
 * and announces it, atomically. The entry and the message carry the version after it and the one
 * it follows (`after`, 0 when the counter was created by it). A counter created anew starts at
 * Redis's clock in ms, so a Redis that lost its data never hands out a version seen before. A
 * counter that is not a plain count (text, `1e308`, a negative or too large number: not written
 * here) is replaced as if absent, so garbage never stops revocations. Returns { version, invalid }.
 */
export const REVOKE_SCRIPT = `
if ARGV[3] == '' then
  redis.call('DEL', KEYS[1])
else
  redis.call('SREM', KEYS[1], ARGV[3])
end
local after = redis.call('GET', KEYS[2])
local invalid = 0
-- Only a count this script wrote is trusted: digits, small enough for INCR and exact in Lua.
if after and (not string.match(after, '^%d+$') or #after > 15) then
  invalid = 1
  after = nil
end
if after then
  after = tonumber(after)
else
  local now = redis.call('TIME')
  redis.call('SET', KEYS[2], now[1] .. string.format('%03d', math.floor(now[2] / 1000)))
  after = 0
end
local version = redis.call('INCR', KEYS[2])
local revocation = cjson.encode({
  version = version, after = after, kind = ARGV[2], tool = ARGV[3], session = ARGV[4]
})
redis.call('LPUSH', KEYS[3], revocation)
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[5]) - 1)
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('PUBLISH', ARGV[1], revocation)
return { version, invalid }
`;

/** The command {@link REVOKE_SCRIPT} is defined as on a connection. */
export type RevokeCommands = {
  toolsysRevokeGrant(
    grants: string,
    version: string,
    log: string,
    channel: string,
    kind: 'always' | 'session',
    toolId: string,
    sessionId: string,
    logLength: number,
    logTtlMs: number,
  ): Promise<[number, number]>;
};

/** One revocation, as published and logged by {@link REVOKE_SCRIPT}. */
export interface Revocation {
  version: number;
  /** The version it follows; 0 when it created the counter; absent from older writers. */
  after?: number;
  kind: 'always' | 'session';
  /** Empty: every grant of the key (all "always" grants, or the whole session). */
  tool: string;
  session: string;
}

/** A log entry or message of {@link REVOKE_SCRIPT}; undefined when it is not one. */
export function parseRevocation(text: string): Revocation | undefined {
  try {
    const value = JSON.parse(text) as Partial<Revocation>;
    const isRevocation =
      isCount(value.version) &&
      (value.after === undefined || isCount(value.after)) &&
      (value.kind === 'always' || value.kind === 'session') &&
      typeof value.tool === 'string' &&
      typeof value.session === 'string';
    return isRevocation ? (value as Revocation) : undefined;
  } catch {
    return undefined;
  }
}

/** A revocation count as {@link REVOKE_SCRIPT} writes it: a non-negative safe integer. */
function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
