/**
 * Test helpers, published as `@toolsys/core-tool-registry/testing`: a fake clock, the executor
 * tests call tools through, and result readers.
 */
export { FakeClock, type FakeClockOptions, flushMicrotasks, sequenceRandom } from './fake-clock.js';
export {
  createTestExecutor,
  failureError,
  successText,
  TEST_TOOL_METADATA,
  type TestExecutorOptions,
} from './test-executor.js';
