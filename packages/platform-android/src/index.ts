export { AndroidDeviceError } from './adb-errors.js';
export {
  type AdbCallOptions,
  AndroidDevice,
  AndroidDeviceManager,
  type AndroidDeviceManagerOptions,
  type ListedDevice,
} from './android-device.js';
export {
  AndroidToolSession,
  type AndroidToolSessionOptions,
  type UiSnapshot,
} from './android-session.js';
export {
  type AppiumInstall,
  defaultAppiumHome,
  findAndroidHome,
  findAppiumInstall,
  LocalAppiumServer,
  type LocalAppiumServerOptions,
} from './appium/appium-server.js';
export {
  AppiumUiBackend,
  type AppiumUiBackendOptions,
  AppiumUnavailableError,
} from './appium/appium-ui-backend.js';
export { chooseLocators, type Locator } from './appium/locator.js';
export { AutoUiBackendChoice, type AutoUiBackendChoiceOptions } from './auto-ui-backend-choice.js';
export {
  type AndroidTools,
  type AndroidToolsOptions,
  createAndroidTools,
} from './create-android-tools.js';
export {
  AndroidSignals,
  type DeviceTelemetry,
  KEYBOARD_RULE,
  readDeviceTelemetry,
  recordTelemetry,
  SCREEN_RULES,
} from './device-telemetry.js';
export { parseStreamVolume, type StreamVolume } from './parsers/audio.js';
export {
  type ForegroundApp,
  parseCurrentInputMethod,
  parseForegroundApp,
  parseGetprop,
  parseKeyboardShown,
  parseLocked,
  parseScreenOn,
  parseSecureWindow,
  parseWmDensity,
  parseWmSize,
} from './parsers/device-state.js';
export { type DeviceLocation, parseLocations } from './parsers/location.js';
export { isAtLeastLevel, type LogcatEntry, parseThreadtime } from './parsers/logcat.js';
export { type MediaSessionInfo, parseMediaSessions } from './parsers/media-session.js';
export { type DeviceNotification, parseNotifications } from './parsers/notifications.js';
export {
  type ListedPackage,
  type PackageDetails,
  parsePackageDetails,
  parsePackageList,
} from './parsers/packages.js';
export { decodePng, downscale, encodePng, isAllBlack, isPng, type RgbImage } from './png-image.js';
export { type AndroidPackageConfig, androidConfigSchema, toolPackage } from './tool-package.js';
export { CLIPPER_PACKAGE } from './tools/media/index.js';
export { ADB_KEYBOARD_IME } from './tools/ui/index.js';
export {
  AdbUiBackend,
  type ScreenPoint,
  type TapTarget,
  type UiBackend,
  UiBackendChoice,
  type UiBackendName,
  type UiBackendRun,
} from './ui-backend.js';
export {
  appiumAnswers,
  createUiBackendChoice,
  describeUiBackend,
  type UiBackendOptions,
} from './ui-backend-choice.js';
export { describeChange, diffScreens, type ScreenChange } from './ui-diff.js';
export {
  assignRefs,
  centerOf,
  flattenNodes,
  isActionable,
  isEditable,
  isInformative,
  isKeyboardWindow,
  parseUiHierarchy,
  readUiHierarchy,
  readUiHierarchyInSlices,
  type UiHierarchy,
  UiHierarchyParseError,
  type UiNode,
} from './ui-hierarchy.js';
export {
  screenTokenOf,
  type UiTreeCapture,
  UiTreeCaptures,
  type UiTreeCapturesOptions,
} from './ui-tree-captures.js';
export { type PageUiTreeOptions, pageUiTree, type UiTreePage } from './ui-tree-page.js';
export {
  type ResumeUiTreePageOptions,
  resumeUiTreePage,
  type UiTreeResume,
  type UiTreeResumeKind,
} from './ui-tree-resume.js';
export {
  type RenderedUiTree,
  type RenderUiTreeOptions,
  renderUiTree,
  type UiTreeLine,
} from './ui-tree-text.js';
