import { createSharedState } from '@toolsys/state-redis';

// No Redis listens on port 1: the replica keeps serving on its local state, and says so.
const shared = createSharedState({ url: 'redis://127.0.0.1:1', keyPrefix: 'example:' });
try {
  const decision = await shared.rateLimiter.tryAcquire('calculate', 60);
  console.log(`allowed: ${decision.allowed}; state: ${shared.status().mode}`);
} finally {
  await shared.close();
}

// Prints:
// allowed: true; state: local
