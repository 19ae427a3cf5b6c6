import type { SharedState } from '@toolsys/state-redis';

/** Remembers ids nobody may use twice (a 2026-07-28 `requestState`), for as long as each is valid. */
export interface UsedStateIds {
  /** True the first time `id` is claimed within `ttlMs`; false for a replay. */
  claim(id: string, ttlMs: number): Promise<boolean>;
}

/** Local ids at most; the oldest are forgotten first (each is also dropped once expired). */
const MAX_LOCAL_IDS = 100_000;

/**
 * Used ids in the deployment's state store: Redis when `state.redis` is configured and reachable
 * (`SET NX PX`, so every replica sees a claim the moment it is made), else this process's memory.
 */
export function createUsedStateIds(shared: SharedState | undefined): UsedStateIds {
  const local = new Map<string, number>();
  const claimLocally = (id: string, ttlMs: number) => {
    const now = Date.now();
    const until = local.get(id);
    if (until !== undefined && until > now) return false;
    if (local.size >= MAX_LOCAL_IDS) {
      for (const [key, expiry] of local) {
        if (expiry <= now || local.size >= MAX_LOCAL_IDS) local.delete(key);
        else break;
      }
    }
    local.set(id, now + ttlMs);
    return true;
  };
  return {
    async claim(id, ttlMs) {
      const connection = shared?.connection;
      if (connection?.mode !== 'shared') return claimLocally(id, ttlMs);
      const key = connection.key('request-state', id);
      const answer = await connection.run((redis) =>
        redis.set(key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX'),
      );
      // Redis did not answer (the connection fell back): this replica's memory decides.
      if (answer === undefined) return claimLocally(id, ttlMs);
      return answer === 'OK';
    },
  };
}
