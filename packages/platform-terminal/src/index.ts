export { OutputRing, type RingRead } from './output-ring.js';
export {
  findSessionProcesses,
  isWaitingOnTerminal,
  type ProcessStat,
  readProcessStat,
} from './process-state.js';
export { findPtyBackend } from './pty-backend.js';
export {
  type RootfsCommandResult,
  type RootfsFlavor,
  RootfsManager,
  type RootfsManagerOptions,
  type RootfsSource,
  type RootfsStatus,
  RootfsUnavailableError,
} from './rootfs-manager.js';
export {
  MARK_OSC,
  type MarkedPiece,
  MarkFilter,
  renderMark,
  type ShellMark,
} from './shell-marks.js';
export { type FoundProgram, findProgram, findShells, KNOWN_SHELLS } from './shells.js';
export { encodeKey, KEY_NAMES_HELP, toPlainText } from './terminal-keys.js';
export {
  type CreateSessionOptions,
  SessionCreateError,
  type SessionCreateFailure,
  TerminalManager,
  type TerminalManagerOptions,
  type TerminalSandboxMode,
  type TerminalSandboxStatus,
} from './terminal-manager.js';
export {
  type ScreenSnapshot,
  type SessionBackend,
  type SessionEvent,
  type SessionState,
  type ShellIntegration,
  TerminalSession,
  type TerminalSessionOptions,
  type WaitOutcome,
} from './terminal-session.js';
export {
  probePty,
  type TerminalConfig,
  terminalConfigSchema,
  toolPackage,
} from './tool-package.js';
export { createTerminalTools, type TerminalToolsOptions } from './tools/index.js';
export { createIoTools, type IoToolsOptions } from './tools/io/index.js';
export { createLinuxTools, type LinuxToolsOptions } from './tools/linux/index.js';
export { createSessionTools, type SessionToolsOptions } from './tools/sessions/index.js';
