import { fullJitterBackoff } from './backoff.js';
import type { ToolCircuitBreaker } from './circuit-breaker.js';
import { SYSTEM_CLOCK, sleep, type ToolClock } from './clock.js';
import type { DefaultToolExecutorOptions } from './default-tool-executor.js';
import type { ToolEnvironmentGate } from './environment-gate.js';
import {
  cancelledFailure,
  createToolContext,
  failureFromThrown,
  invokeTool,
  lookupTool,
  parseRawArguments,
} from './execution-steps.js';
import type { ToまでolRateLimiter } from './rate-limiter.js';
