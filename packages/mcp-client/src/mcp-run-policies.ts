import { RunPolicies, type ToolRunPolicy } from '@toolsys/core-tool-registry';

/** Longest time limit a single remote call may ask for, in ms. */
export const MAX_CALL_TIMEOUT_MS = 300_000;

/**
 * Run policy of calls whose outcome on the remote side is unknown after a failure: never blindly
 * retried, no rate limit, and an executor timeout just above {@link MAX_CALL_TIMEOUT_MS} so the
 * call's own timeout (which sends `notifications/cancelled`) fires first.
 */
export const MCP_CALL_POLICY: ToolRunPolicy = {
  ...RunPolicies.mutating,
  name: 'mcpCall',
  timeoutMs: MAX_CALL_TIMEOUT_MS + 5_000,
};
