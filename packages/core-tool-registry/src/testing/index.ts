/**
 * Test helpers, published as `@toolsys/core-tool-registry/testing`: a fake clock, test tools, the
 * executor tests call tools through, and result readers.
 */
export { FakeClock, type FakeClockOptions, flushMicrotasks, sequenceRandom } from './fake-clock.js';
export {
  createTestExecutor,
  failureError,
  successText,
  type TestExecutorOptions,
} from './test-executor.js';
export {
  defineTestTool,
  TEST_TOOL_METADATA,
  type TestToolDefinition,
} from './test-tool.js';
