export {
  type AriaNode,
  INTERACTIVE_ROLES,
  isInteractive,
  normaliseAriaJson,
  type RefRenamer,
} from './aria-tree.js';
export {
  BrowserManager,
  type BrowserManagerOptions,
  CHROMIUM_ARGS,
  type SessionLease,
} from './browser-manager.js';
export {
  BrowserSession,
  type BrowserSessionOptions,
  type ConsoleEntry,
  type DialogAnswer,
  type DownloadEntry,
  type NetworkEntry,
} from './browser-session.js';
export { BrowserTab, REF_ATTRIBUTE, type TabSnapshot } from './browser-tab.js';
export { BROWSER_TOOL_IDS, createBrowserTools } from './browser-tools.js';
export { BLOCKED_PAGE_PREFIX, GuardProxy } from './guard-proxy.js';
export { createHostPolicy, type HostPolicy, type HostPolicyOptions } from './host-policy.js';
export { diffSnapshots, isEmptyDelta, type SnapshotDelta } from './snapshot-delta.js';
export {
  type SnapshotCapture,
  SnapshotPages,
  type SnapshotPagesOptions,
  snapshotViewOf,
  WHOLE_PAGE_VIEW,
} from './snapshot-pages.js';
export { type PageSnapshotOptions, pageSnapshot, type SnapshotPage } from './snapshot-paging.js';
export {
  formatNode,
  listSnapshotLines,
  pageTokenOf,
  type RenderedSnapshot,
  type RenderSnapshotOptions,
  renderSnapshot,
  renderSnapshotList,
  type SnapshotLine,
  type SnapshotList,
} from './snapshot-render.js';
export {
  type ResumeSnapshotPageOptions,
  resumeSnapshotPage,
  type SnapshotResume,
  type SnapshotResumeKind,
} from './snapshot-resume.js';
export {
  type BrowserConfig,
  browserConfigSchema,
  findBrowserExecutable,
  toolPackage,
} from './tool-package.js';
export type { SnapshotMode } from './tools/actions/action-report.js';
export type { BrowserToolsOptions } from './tools/browser-tool.js';
