export {
  ADB_HEADER_SIZE,
  ADB_VERSION,
  AdbCommand,
  type AdbPacket,
  AdbPacketReader,
  commandName,
  encodePacket,
} from './adb-packet.js';
export {
  type AdbTestBed,
  type AdbTestBedOptions,
  adbBinary,
  freePort,
  runAdb,
  startAdbTestBed,
} from './adb-server.js';
export { AndroidSim, type AndroidSimOptions } from './android-sim.js';
export { type ApkManifest, readApkManifest } from './apk-manifest.js';
export { type BinaryXmlElement, readBinaryXml } from './binary-xml.js';
export { createDefaultDeviceState, type DefaultDeviceOptions } from './default-device.js';
export type {
  SimApp,
  SimDeviceState,
  SimLogEntry,
  SimMediaSession,
  SimNode,
  SimNotification,
  SimScreen,
} from './device-model.js';
export {
  type MobileMcpElementList,
  type MobileMcpFormat,
  mobileMcpElements,
  type PeerSourceNode,
} from './mobile-mcp-elements.js';
export { encodePng, type PngRectangle } from './png.js';
export type { CommandOutput } from './shell/command-output.js';
export { formatLogTime, formatThreadtime } from './shell/dump-format.js';
export { parseCommandLine, quoteShellWord, type SimpleCommand } from './shell-words.js';
export { SimDevice } from './sim-device.js';
export { isEditable } from './sim-node.js';
export { SyncSession, type SyncSink } from './sync-session.js';
export { renderHierarchyXml } from './ui-xml.js';
export { FakeUiAutomator2Server, UIAUTOMATOR2_DEVICE_PORT } from './uiautomator2-server.js';
