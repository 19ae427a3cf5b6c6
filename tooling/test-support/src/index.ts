// Helpers shared by the workspace's tests and benches. Each starts what it needs on loopback and
// stops it by its pid; heavy modules (the device simulator, the kernel) load on first use.
export {
  type AndroidHarness,
  type AndroidHarnessOptions,
  type AndroidToolsFactory,
  type AndroidToolsFactoryOptions,
  startAndroidHarness,
} from './android.js';
export {
  HAPROXY_CONFIG,
  type HaproxyProcess,
  type StartHaproxyOptions,
  startHaproxy,
} from './haproxy.js';
export {
  type InitializeRequestOptions,
  initializeRequest,
  MCP_POST_HEADERS,
  MCP_PROTOCOL_VERSION,
} from './mcp-messages.js';
export {
  type ModernAnswer,
  type ModernRequestOptions,
  modernRequest,
  pollTask,
} from './modern-wire.js';
export {
  freePort,
  type IsPortOpenOptions,
  isPortOpen,
  listenOnLoopback,
  type WaitForPortOptions,
  waitForPort,
} from './ports.js';
export {
  hasExited,
  isAlive,
  readPidFile,
  type StopProcessOptions,
  stopProcess,
  waitForExit,
  waitForPidGone,
} from './processes.js';
export { type RedisProcess, type StartRedisOptions, startRedis } from './redis.js';
export { createTempDir, removeTempDir } from './temp-dirs.js';
export {
  createTempWorkspace,
  type TempWorkspace,
  type TempWorkspaceOptions,
  writeFiles,
} from './temp-workspaces.js';
export { textOf } from './tool-results.js';
export { startWebDriverStub, type WebDriverStub } from './webdriver-stub.js';
