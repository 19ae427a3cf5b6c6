import {
  type AnyToolDefinition,
  type OffTool,
  type OffTools,
  offToolFailure,
  type ToolFailure,
} from '@toolsys/core-tool-registry';
import type { DeviceGoneError } from './adb-errors.js';
import { ANDROID_PACKAGE_NAME } from './package-name.js';

/**
 * What the Android tools tell the deployment when their device goes away and comes back. While
 * the device is gone, a call gets the answer of a tool that is off (the package, that its device
 * is not connected, how to bring it back) and every tool of the package is listed as off by
 * `tool_search`; the first call that finds the device again lists them as on.
 */
export class DeviceAwayNotice {
  readonly #off: OffTools | undefined;
  #tools: ReadonlyArray<Pick<AnyToolDefinition, 'id' | 'description'>> = [];
  #isAway = false;

  /** `off`: the deployment registry's off tools, where the package's tools are marked away. */
  constructor(off?: OffTools) {
    this.#off = off;
  }

  /** The tools to mark away together (the package's own, once built). */
  track(tools: ReadonlyArray<Pick<AnyToolDefinition, 'id' | 'description'>>): void {
    this.#tools = tools;
  }

  /** The failure of a call of `toolId` whose device is gone; marks every tracked tool away. */
  gone(toolId: string, error: DeviceGoneError): ToolFailure {
    const off = (id: string, description?: string): OffTool => ({
      id,
      owner: ANDROID_PACKAGE_NAME,
      reason: `its device is not connected: ${error.message}`,
      hint: error.hint,
      ...(description === undefined ? {} : { description }),
    });
    this.#off?.markAway(this.#tools.map((tool) => off(tool.id, tool.description)));
    this.#isAway = true;
    return offToolFailure(off(toolId));
  }

  /** The device is there again: the tools are listed as on. */
  back(): void {
    if (!this.#isAway) return;
    this.#isAway = false;
    this.#off?.markBack(this.#tools.map((tool) => tool.id));
  }
}
