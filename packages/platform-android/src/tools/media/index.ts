import type { AnyToolDefinition } from '@toolsys/core-tool-registry';
import type { AndroidToolSession } from '../../android-session.js';
import { createClipboardTool } from './clipboard.js';
import { createControlMediaTool } from './control-media.js';

/** `control_media` and `clipboard`. */
export function createMediaTools(session: AndroidToolSession): AnyToolDefinition[] {
  return [createControlMediaTool(session), createClipboardTool(session)];
}

export { CLIPPER_PACKAGE } from './clipboard.js';
